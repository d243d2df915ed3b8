package io.futureq.group;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Deliveries awaiting an ack, by consumer and tag. A consumer's tags count up with each delivery
 * and every delivery gets the same timeout, so each consumer's deliveries sit in a window indexed by
 * tag, oldest (earliest deadline) first: adding, acking a range and expiring cost no search.
 */
final class InFlightTable<C> {
  static final class Entry<C> {
    final C consumer;
    final long tag;
    final DueMessage message;
    final int attempt;
    final long deadlineMs;

    Entry(C consumer, long tag, DueMessage message, int attempt, long deadlineMs) {
      this.consumer = consumer;
      this.tag = tag;
      this.message = message;
      this.attempt = attempt;
      this.deadlineMs = deadlineMs;
    }
  }

  private final Map<C, TagWindow<C>> byConsumer = new HashMap<>();
  private int size;

  /** Adds a delivery; a consumer's tags must count up (gaps are allowed). */
  void add(Entry<C> entry) {
    byConsumer.computeIfAbsent(entry.consumer, c -> new TagWindow<>()).add(entry);
    size++;
  }

  int size() {
    return size;
  }

  /** Removes and returns the entries of {@code consumer} with tags {@code first..last}, in tag order. */
  List<Entry<C>> removeRange(C consumer, long first, long last) {
    TagWindow<C> window = byConsumer.get(consumer);
    if (window == null) {
      return List.of();
    }
    List<Entry<C>> out = window.removeRange(first, last);
    size -= out.size();
    return out;
  }

  /** Removes and returns every entry whose deadline is at or before {@code nowMs}. */
  List<Entry<C>> removeExpired(long nowMs) {
    List<Entry<C>> out = new ArrayList<>();
    for (TagWindow<C> window : byConsumer.values()) {
      window.removeExpired(nowMs, out);
    }
    size -= out.size();
    return out;
  }

  /** Removes and returns every entry held by {@code consumer}, in tag order. */
  List<Entry<C>> removeConsumer(C consumer) {
    TagWindow<C> window = byConsumer.remove(consumer);
    if (window == null) {
      return List.of();
    }
    List<Entry<C>> out = window.removeRange(Long.MIN_VALUE, Long.MAX_VALUE);
    size -= out.size();
    return out;
  }

  /** Removes and returns every entry whose message {@code gone} names (cancelled or expired). */
  List<Entry<C>> removeMessages(Predicate<DueMessage> gone) {
    List<Entry<C>> out = new ArrayList<>();
    for (TagWindow<C> window : byConsumer.values()) {
      window.removeIf(gone, out);
    }
    size -= out.size();
    return out;
  }

  /** The earliest deadline, or Long.MAX_VALUE when empty. Looks at each consumer's oldest entry. */
  long earliestDeadline() {
    long earliest = Long.MAX_VALUE;
    for (TagWindow<C> window : byConsumer.values()) {
      earliest = Math.min(earliest, window.oldestDeadline());
    }
    return earliest;
  }

  /** One consumer's entries in a ring indexed by tag, from the oldest one still held. */
  private static final class TagWindow<C> {
    @SuppressWarnings("unchecked")
    private Entry<C>[] ring = new Entry[16];
    private int head;
    /** Slots from the head, held or not, up to the newest tag. */
    private int span;
    private long baseTag;

    void add(Entry<C> entry) {
      if (span == 0) {
        baseTag = entry.tag;
      }
      long offset = entry.tag - baseTag;
      if (offset < span) {
        throw new IllegalArgumentException("delivery tag " + entry.tag + " does not follow " + (baseTag + span - 1));
      }
      while (offset >= ring.length) {
        grow();
      }
      ring[(head + (int) offset) & (ring.length - 1)] = entry;
      span = (int) offset + 1;
    }

    List<Entry<C>> removeRange(long first, long last) {
      long from = Math.max(first, baseTag);
      long to = Math.min(last, baseTag + span - 1);
      if (span == 0 || from > to) {
        return List.of();
      }
      List<Entry<C>> out = new ArrayList<>((int) Math.min(to - from + 1, 1024));
      for (long tag = from; tag <= to; tag++) {
        int slot = (head + (int) (tag - baseTag)) & (ring.length - 1);
        if (ring[slot] != null) {
          out.add(ring[slot]);
          ring[slot] = null;
        }
      }
      trim();
      return out;
    }

    void removeExpired(long nowMs, List<Entry<C>> out) {
      while (span > 0 && ring[head].deadlineMs <= nowMs) {
        out.add(ring[head]);
        ring[head] = null;
        trim();
      }
    }

    void removeIf(Predicate<DueMessage> gone, List<Entry<C>> out) {
      for (int i = 0; i < span; i++) {
        int slot = (head + i) & (ring.length - 1);
        if (ring[slot] != null && gone.test(ring[slot].message)) {
          out.add(ring[slot]);
          ring[slot] = null;
        }
      }
      trim();
    }

    long oldestDeadline() {
      return span == 0 ? Long.MAX_VALUE : ring[head].deadlineMs;
    }

    /** Moves the head past settled slots, so that it always holds an entry. */
    private void trim() {
      while (span > 0 && ring[head] == null) {
        head = (head + 1) & (ring.length - 1);
        baseTag++;
        span--;
      }
    }

    private void grow() {
      @SuppressWarnings("unchecked")
      Entry<C>[] bigger = new Entry[ring.length * 2];
      for (int i = 0; i < span; i++) {
        bigger[i] = ring[(head + i) & (ring.length - 1)];
      }
      ring = bigger;
      head = 0;
    }
  }
}
