package io.futureq.log.leader;

import io.futureq.log.Failures;
import io.futureq.log.LogClosedException;
import io.futureq.log.LogRejectedException;
import io.futureq.log.LogUnavailableException;
import io.futureq.serialization.CborSerializable;
import io.futureq.storage.StorageException;
import java.util.concurrent.TimeoutException;

/**
 * Why the write leader failed a forwarded command, as it crosses nodes: the writer's node raises the same kind of
 * exception again, so the gRPC status is the one a write on the leader's node would get.
 */
public record WriteFailure(String reason, Kind kind) implements CborSerializable {
  /** The kinds of failure a writer tells apart. */
  public enum Kind { STORAGE, REJECTED, INVALID, CLOSED, TIMEOUT, UNAVAILABLE }

  static WriteFailure of(Throwable failure) {
    Throwable cause = Failures.cause(failure);
    return new WriteFailure(String.valueOf(cause.getMessage()), kindOf(cause));
  }

  /** The failure as the leader's node saw it. */
  public Throwable toException() {
    switch (kind) {
      case STORAGE: return new StorageException(reason, null);
      case REJECTED: return new LogRejectedException(reason, null);
      case INVALID: return new IllegalArgumentException(reason);
      case CLOSED: return new LogClosedException();
      case TIMEOUT: return new TimeoutException(reason);
      default: return new LogUnavailableException(reason, null);
    }
  }

  private static Kind kindOf(Throwable cause) {
    if (cause instanceof StorageException) {
      return Kind.STORAGE;
    } else if (cause instanceof LogRejectedException) {
      return Kind.REJECTED;
    } else if (cause instanceof IllegalArgumentException) {
      return Kind.INVALID;
    } else if (cause instanceof LogClosedException) {
      return Kind.CLOSED;
    } else if (cause instanceof TimeoutException) {
      return Kind.TIMEOUT;
    }
    return Kind.UNAVAILABLE;
  }
}
