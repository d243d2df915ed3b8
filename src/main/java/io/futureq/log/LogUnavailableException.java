package io.futureq.log;

/**
 * The clustered log could not commit an entry: no leader was reachable, the group had no quorum
 * within the request timeout, or the Raft server of this node is down. The message names the
 * entry's size and the underlying failure.
 *
 * <p>The outcome of the commands is unknown: the entry may still commit later (a leader may have
 * appended it before it failed). Callers should treat this as retryable; messages published with a
 * key are stored at most once when retried. The gRPC edge maps it to {@code UNAVAILABLE}.
 */
public final class LogUnavailableException extends RuntimeException {
  public LogUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
