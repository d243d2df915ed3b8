package io.futureq.log;

/**
 * Every replica refused the entry alike (a publish through a node whose settings disagree with the
 * cluster's, a command this version cannot apply): it was not applied and never will be as it is.
 * The gRPC edge maps it to {@code FAILED_PRECONDITION}.
 */
public final class LogRejectedException extends RuntimeException {
  public LogRejectedException(String message, Throwable cause) {
    super(message, cause);
  }
}
