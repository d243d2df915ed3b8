package io.futureq.client;

import io.grpc.Status;

/** The broker refused the request as sent, e.g. a bad topic or group name, a payload over its limit, a delay beyond its maximum (INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE, ALREADY_EXISTS): the message says which field. Retrying the same request will not help. */
public final class InvalidRequestException extends FutureQException {
  InvalidRequestException(Status.Code code, String message) {
    super(code, message);
  }
}
