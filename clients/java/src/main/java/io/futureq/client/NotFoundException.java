package io.futureq.client;

import io.grpc.Status;

/** No such message (none pending with that key or id), group or topic (NOT_FOUND). */
public final class NotFoundException extends FutureQException {
  NotFoundException(String message) {
    super(Status.Code.NOT_FOUND, message);
  }
}
