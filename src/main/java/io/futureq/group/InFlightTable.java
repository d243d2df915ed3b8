package io.futureq.group;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * Deliveries awaiting an ack, by consumer and tag. One timeout applies to all, so insertion order
 * is deadline order and expiry only looks at the head.
 */
final class InFlightTable<C> {
  /** Identity is the entry itself: the deadline order holds each entry once. */
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

  private final LinkedHashSet<Entry<C>> byDeadline = new LinkedHashSet<>();
  private final Map<C, TreeMap<Long, Entry<C>>> byConsumer = new HashMap<>();

  void add(Entry<C> entry) {
    byDeadline.add(entry);
    byConsumer.computeIfAbsent(entry.consumer, c -> new TreeMap<>()).put(entry.tag, entry);
  }

  int size() {
    return byDeadline.size();
  }

  /** Removes and returns the entries of {@code consumer} with tags {@code first..last}, in tag order. */
  List<Entry<C>> removeRange(C consumer, long first, long last) {
    TreeMap<Long, Entry<C>> held = byConsumer.get(consumer);
    if (held == null) {
      return List.of();
    }
    NavigableMap<Long, Entry<C>> range = held.subMap(first, true, last, true);
    if (range.isEmpty()) {
      return List.of();
    }
    List<Entry<C>> out = new ArrayList<>(range.values());
    range.clear();
    out.forEach(byDeadline::remove);
    return out;
  }

  /** Removes and returns every entry whose deadline is at or before {@code nowMs}. */
  List<Entry<C>> removeExpired(long nowMs) {
    List<Entry<C>> out = new ArrayList<>();
    Iterator<Entry<C>> it = byDeadline.iterator();
    while (it.hasNext()) {
      Entry<C> e = it.next();
      if (e.deadlineMs > nowMs) {
        break;
      }
      out.add(e);
      it.remove();
      byConsumer.get(e.consumer).remove(e.tag);
    }
    return out;
  }

  /** Removes and returns every entry held by {@code consumer}, in tag order. */
  List<Entry<C>> removeConsumer(C consumer) {
    TreeMap<Long, Entry<C>> held = byConsumer.remove(consumer);
    if (held == null) {
      return List.of();
    }
    List<Entry<C>> out = new ArrayList<>(held.values());
    out.forEach(byDeadline::remove);
    return out;
  }

  /** The earliest deadline, or Long.MAX_VALUE when empty. */
  long earliestDeadline() {
    return byDeadline.isEmpty() ? Long.MAX_VALUE : byDeadline.iterator().next().deadlineMs;
  }
}
