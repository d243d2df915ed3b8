package io.futureq.api;

import io.grpc.Status;

/** A request the broker refuses as sent; the message names the field (and index) and why. */
final class InvalidRequest extends RuntimeException {
  private final Status.Code code;

  InvalidRequest(Status.Code code, String message) {
    super(message, null, false, false);
    this.code = code;
  }

  static InvalidRequest invalid(String message) {
    return new InvalidRequest(Status.Code.INVALID_ARGUMENT, message);
  }

  static InvalidRequest tooLarge(String message) {
    return new InvalidRequest(Status.Code.RESOURCE_EXHAUSTED, message);
  }

  Status.Code code() {
    return code;
  }
}
