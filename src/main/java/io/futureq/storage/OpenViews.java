package io.futureq.storage;

import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * The sequence numbers that open {@link MemoryStore} views read at, so the writer knows which old
 * versions somebody may still read. Taking a number and registering it is one step under the lock:
 * otherwise the writer could trim below a number taken but not yet registered.
 */
final class OpenViews {
  private final TreeMap<Long, Integer> counts = new TreeMap<>();

  /** Registers a view at the number {@code committed} gives now, and returns that number. */
  synchronized long open(LongSupplier committed) {
    long seq = committed.getAsLong();
    counts.merge(seq, 1, Integer::sum);
    return seq;
  }

  synchronized void close(long seq) {
    counts.computeIfPresent(seq, (k, n) -> n == 1 ? null : n - 1);
  }

  /** The lowest number an open view reads at, or {@code otherwise} when none is open. */
  synchronized long oldest(long otherwise) {
    return counts.isEmpty() ? otherwise : Math.min(counts.firstKey(), otherwise);
  }
}
