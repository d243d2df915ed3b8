package io.futureq.client;

import io.grpc.Status;

/** No token, an invalid or expired one (UNAUTHENTICATED), or a token without the right for this topic or call (PERMISSION_DENIED); {@link #code()} tells which. */
public final class PermissionDeniedException extends FutureQException {
  PermissionDeniedException(Status.Code code, String message) {
    super(code, message);
  }
}
