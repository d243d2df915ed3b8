package io.futureq.storage;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Keeps RocksDB from being closed under a caller. Every call into the native store, and every open
 * view, holds the gate; {@link #close} refuses new entries and waits for those inside. Using a
 * closed RocksDB does not throw: it aborts the whole JVM ("pthread lock: Invalid argument"), which
 * a reader still running on another thread during a shutdown (a group's read, a snapshot) could
 * otherwise cause.
 */
final class StoreGate {
  private final String where;
  private final AtomicInteger inside = new AtomicInteger();
  private volatile boolean closed;

  StoreGate(Path dir) {
    this.where = dir.toString();
  }

  /** Enters, or throws if the store is closed; every enter is paired with {@link #exit}. */
  void enter() {
    inside.incrementAndGet();
    if (closed) {
      inside.decrementAndGet();
      throw new StorageException("the store in " + where + " is closed", null);
    }
  }

  void exit() {
    inside.decrementAndGet();
  }

  /**
   * Refuses new entries and waits up to {@code wait} for the callers inside to leave.
   *
   * @return true if none is left inside: the native store may be closed
   */
  boolean close(Duration wait) {
    closed = true;
    long deadline = System.nanoTime() + wait.toNanos();
    while (inside.get() > 0) {
      if (System.nanoTime() - deadline > 0) {
        return false;
      }
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return true;
  }

  int inside() {
    return inside.get();
  }
}
