package io.futureq.log;

/**
 * The log already holds as many uncommitted commands as it may ({@code futureq.storage.max-queued-commands}):
 * storage is slower than producers. Nothing of the command was applied; retry later. The gRPC edge
 * maps it to {@code RESOURCE_EXHAUSTED}.
 */
public final class LogOverloadedException extends RuntimeException {
  public LogOverloadedException(int queued) {
    super("the broker is overloaded: " + queued + " writes are waiting for storage "
        + "(futureq.storage.max-queued-commands); retry later", null, false, false);
  }
}
