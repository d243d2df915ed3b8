package io.futureq.cli;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The bench's set of message ids, kept as 64-bit hashes in one array sized up front: adding allocates nothing and
 * leaves nothing for the young collections to copy. A set of the id strings did, and the bench's own pauses (20-60 ms
 * with 200,000 ids) showed as lateness at the client. Two ids share a hash with a probability of about n²/2⁶⁵
 * (10⁻⁹ for 200,000): a duplicate or a missing message could then go uncounted. Thread-safe; holds at most the
 * capacity it was made with.
 */
final class IdSet {
  private static final long EMPTY = 0;
  private final AtomicLongArray slots;
  private final int mask;
  private final int capacity;
  private final AtomicInteger size = new AtomicInteger();

  /** A set for at most {@code capacity} ids. */
  IdSet(int capacity) {
    this.capacity = Math.max(1, capacity);
    int length = Integer.highestOneBit(Math.max(16, this.capacity * 2 - 1)) << 1;
    this.slots = new AtomicLongArray(length);
    this.mask = length - 1;
  }

  /** Adds the id; false if it was there already. */
  boolean add(String id) {
    long h = hash(id);
    for (int i = (int) (h ^ (h >>> 32)) & mask; ; i = (i + 1) & mask) {
      long v = slots.get(i);
      while (v == EMPTY) {
        if (size.get() >= capacity) {
          throw new IllegalStateException("more than " + capacity + " message ids");
        }
        if (slots.compareAndSet(i, EMPTY, h)) {
          size.incrementAndGet();
          return true;
        }
        v = slots.get(i);
      }
      if (v == h) {
        return false;
      }
    }
  }

  int size() {
    return size.get();
  }

  /** How many ids of this set {@code other} lacks. */
  long missingFrom(IdSet other) {
    long missing = 0;
    for (int i = 0; i < slots.length(); i++) {
      long h = slots.get(i);
      if (h != EMPTY && !other.contains(h)) {
        missing++;
      }
    }
    return missing;
  }

  private boolean contains(long h) {
    for (int i = (int) (h ^ (h >>> 32)) & mask; ; i = (i + 1) & mask) {
      long v = slots.get(i);
      if (v == h) {
        return true;
      }
      if (v == EMPTY) {
        return false;
      }
    }
  }

  /** FNV-1a over the id's characters, then a final mix (SplitMix64's) so that nearby ids spread; never 0. */
  static long hash(String id) {
    long h = 0xcbf29ce484222325L;
    for (int i = 0; i < id.length(); i++) {
      h = (h ^ id.charAt(i)) * 0x100000001b3L;
    }
    h = (h ^ (h >>> 30)) * 0xbf58476d1ce4e5b9L;
    h = (h ^ (h >>> 27)) * 0x94d049bb133111ebL;
    h ^= h >>> 31;
    return h == EMPTY ? 1 : h;
  }
}
