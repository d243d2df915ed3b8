package io.futureq.log;

/**
 * The log already holds as many uncommitted commands, or bytes, as it may
 * ({@code futureq.storage.max-queued-commands}, {@code max-queued-bytes}): storage is slower than
 * producers, or a cluster has no quorum. Nothing of the command was applied; retry later. The gRPC
 * edge maps it to {@code RESOURCE_EXHAUSTED}.
 */
public final class LogOverloadedException extends RuntimeException {
  public LogOverloadedException(int queuedCommands, long queuedBytes) {
    super("the broker is overloaded: " + queuedCommands + " writes (" + queuedBytes + " bytes) are waiting for "
        + "storage (futureq.storage.max-queued-commands, max-queued-bytes); retry later", null, false, false);
  }
}
