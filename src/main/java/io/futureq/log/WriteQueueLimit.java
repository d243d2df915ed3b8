package io.futureq.log;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How much may wait for a commit, in commands and in bytes ({@code futureq.storage.max-queued-commands}
 * and {@code max-queued-bytes}): beyond it an append fails at once with {@link LogOverloadedException}
 * instead of holding its payload in memory without bound while storage (a slow disk, a cluster without
 * quorum) cannot keep up. Thread-safe: appends reserve from any thread, the committer releases.
 */
public final class WriteQueueLimit {
  private final int maxCommands;
  private final long maxBytes;
  private final AtomicInteger commands = new AtomicInteger();
  private final AtomicLong bytes = new AtomicLong();

  public WriteQueueLimit(int maxCommands, long maxBytes) {
    this.maxCommands = maxCommands;
    this.maxBytes = maxBytes;
  }

  /**
   * Reserves room for one command of {@code size} bytes. A command larger than the whole byte limit
   * is let through when nothing else waits, so no single command is refused for good.
   *
   * @throws LogOverloadedException if the queue is full
   */
  public void reserve(long size) {
    int queued = commands.incrementAndGet();
    long queuedBytes = bytes.addAndGet(size);
    if (queued > maxCommands || (queuedBytes > maxBytes && queued > 1)) {
      release(size);
      throw new LogOverloadedException(queued - 1, queuedBytes - size);
    }
  }

  /** The command left the queue (committed, failed or dropped). */
  public void release(long size) {
    commands.decrementAndGet();
    bytes.addAndGet(-size);
  }

  public int queuedCommands() {
    return commands.get();
  }

  public long queuedBytes() {
    return bytes.get();
  }
}
