package io.futureq.group;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.Predicate;

/** Nacked messages waiting out their requeue delay, earliest first. */
final class RequeueQueue {
  private record Waiting(long readyAtMs, long order, Pending pending) {}

  private final PriorityQueue<Waiting> queue = new PriorityQueue<>((a, b) -> a.readyAtMs != b.readyAtMs
      ? Long.compare(a.readyAtMs, b.readyAtMs) : Long.compare(a.order, b.order));
  private long order;

  void add(Pending pending, long readyAtMs) {
    queue.add(new Waiting(readyAtMs, order++, pending));
  }

  /** Removes and returns the messages whose delay is over by {@code nowMs}, earliest first. */
  List<Pending> takeReady(long nowMs) {
    List<Pending> out = new ArrayList<>();
    while (!queue.isEmpty() && queue.peek().readyAtMs <= nowMs) {
      out.add(queue.poll().pending);
    }
    return out;
  }

  long earliest() {
    return queue.isEmpty() ? Long.MAX_VALUE : queue.peek().readyAtMs;
  }

  int size() {
    return queue.size();
  }

  void removeIf(Predicate<Pending> filter) {
    queue.removeIf(w -> filter.test(w.pending));
  }
}
