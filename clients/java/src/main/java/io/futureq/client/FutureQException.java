package io.futureq.client;

import io.grpc.Status;

/** A request the broker refused or could not complete; {@link #code()} is the gRPC status code. */
public final class FutureQException extends RuntimeException {
  private final Status.Code code;

  public FutureQException(Status.Code code, String message) {
    super(code + ": " + message);
    this.code = code;
  }

  public Status.Code code() {
    return code;
  }

  /** True for failures worth retrying on another connection (broker down, restarting, overloaded). */
  boolean retriable() {
    return code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED || code == Status.Code.ABORTED
        || code == Status.Code.UNKNOWN || code == Status.Code.INTERNAL;
  }

  static FutureQException from(Throwable t) {
    Throwable cause = t;
    while (cause instanceof java.util.concurrent.CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    if (cause instanceof FutureQException f) {
      return f;
    }
    if (cause instanceof java.util.concurrent.TimeoutException) {
      return new FutureQException(Status.Code.DEADLINE_EXCEEDED, "no answer within the request timeout");
    }
    if (cause instanceof io.grpc.StatusRuntimeException s) {
      return from(s.getStatus());
    }
    return new FutureQException(Status.Code.UNAVAILABLE, cause.toString());
  }

  static FutureQException from(Status status) {
    String description = status.getDescription() != null ? status.getDescription()
        : status.getCause() != null ? status.getCause().toString() : "no detail";
    String tls = status.getCode() == Status.Code.UNAVAILABLE ? TlsFailure.describe(status.getCause(), description)
        : null;
    // gRPC appends Netty's pipeline on a line of its own: one line is what a user reads.
    return new FutureQException(status.getCode(), tls != null ? tls : description.lines().findFirst().orElse(""));
  }
}
