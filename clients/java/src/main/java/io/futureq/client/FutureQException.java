package io.futureq.client;

import io.grpc.Status;

/**
 * A request the broker refused or could not complete; {@link #code()} is the gRPC status code. The client fails with
 * one of the subclasses where the code has one, so an application can catch what it handles:
 * <ul>
 *   <li>{@link BrokerUnavailableException}: no broker reachable, or it is restarting (UNAVAILABLE);</li>
 *   <li>{@link TimedOutException}: no answer within the request or send timeout (DEADLINE_EXCEEDED);</li>
 *   <li>{@link InvalidRequestException}: the request is wrong as sent, e.g. a bad topic name or a payload over the
 *       broker's limit (INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE, ALREADY_EXISTS); retrying won't help;</li>
 *   <li>{@link RejectedException}: the broker or the producer is over a limit for now (RESOURCE_EXHAUSTED);</li>
 *   <li>{@link NotFoundException}: no such message, group or topic (NOT_FOUND);</li>
 *   <li>{@link PermissionDeniedException}: no token, an invalid one, or one without the right
 *       (UNAUTHENTICATED, PERMISSION_DENIED).</li>
 * </ul>
 * Other codes (CANCELLED when a producer closes, INTERNAL, UNKNOWN, ABORTED) fail with a plain FutureQException.
 */
public class FutureQException extends RuntimeException {
  private final Status.Code code;

  /** A failure with {@code code}; the client itself creates them with {@link #of}, which picks the subclass. */
  public FutureQException(Status.Code code, String message) {
    super(code + ": " + message);
    this.code = code;
  }

  /** The exception the client throws for {@code code}: the subclass for it, or a plain FutureQException. */
  public static FutureQException of(Status.Code code, String message) {
    return switch (code) {
      case UNAVAILABLE -> new BrokerUnavailableException(message);
      case DEADLINE_EXCEEDED -> new TimedOutException(message);
      case INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE, ALREADY_EXISTS ->
          new InvalidRequestException(code, message);
      case RESOURCE_EXHAUSTED -> new RejectedException(message);
      case NOT_FOUND -> new NotFoundException(message);
      case UNAUTHENTICATED, PERMISSION_DENIED -> new PermissionDeniedException(code, message);
      default -> new FutureQException(code, message);
    };
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
      return of(Status.Code.DEADLINE_EXCEEDED, "no answer within the request timeout");
    }
    if (cause instanceof io.grpc.StatusRuntimeException s) {
      return from(s.getStatus());
    }
    return of(Status.Code.UNAVAILABLE, cause.toString());
  }

  static FutureQException from(Status status) {
    String description = status.getDescription() != null ? status.getDescription()
        : status.getCause() != null ? status.getCause().toString() : "no detail";
    String tls = status.getCode() == Status.Code.UNAVAILABLE ? TlsFailure.describe(status.getCause(), description)
        : null;
    // gRPC appends Netty's pipeline on a line of its own: one line is what a user reads.
    return of(status.getCode(), tls != null ? tls : description.lines().findFirst().orElse(""));
  }
}
