package io.futureq.group;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * Deliveries awaiting an ack, by delivery sequence number. One timeout applies to all, so
 * insertion order is deadline order and expiry only looks at the head.
 */
final class InFlightTable<C> {
  record Entry<C>(long seq, DueMessage message, int attempt, C consumer, long deadlineMs) {}

  private final LinkedHashMap<Long, Entry<C>> entries = new LinkedHashMap<>();

  void add(Entry<C> entry) {
    entries.put(entry.seq(), entry);
  }

  Entry<C> get(long seq) {
    return entries.get(seq);
  }

  Entry<C> remove(long seq) {
    return entries.remove(seq);
  }

  int size() {
    return entries.size();
  }

  /** Removes and returns every entry whose deadline is at or before {@code nowMs}. */
  List<Entry<C>> removeExpired(long nowMs) {
    List<Entry<C>> out = new ArrayList<>();
    Iterator<Entry<C>> it = entries.values().iterator();
    while (it.hasNext()) {
      Entry<C> e = it.next();
      if (e.deadlineMs() > nowMs) {
        break;
      }
      out.add(e);
      it.remove();
    }
    return out;
  }

  /** Removes and returns every entry held by {@code consumer}. */
  List<Entry<C>> removeConsumer(C consumer) {
    List<Entry<C>> out = new ArrayList<>();
    entries.values().removeIf(e -> {
      if (e.consumer().equals(consumer)) {
        out.add(e);
        return true;
      }
      return false;
    });
    return out;
  }

  /** The earliest deadline, or Long.MAX_VALUE when empty. */
  long earliestDeadline() {
    return entries.isEmpty() ? Long.MAX_VALUE : entries.values().iterator().next().deadlineMs();
  }
}
