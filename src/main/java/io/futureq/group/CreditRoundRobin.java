package io.futureq.group;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** Live consumers of a group in round-robin order, each with its credit (max in flight). */
final class CreditRoundRobin<C> {
  private static final class Slot<C> {
    final C consumer;
    final int maxInFlight;
    int inFlight;

    Slot(C consumer, int maxInFlight) {
      this.consumer = consumer;
      this.maxInFlight = maxInFlight;
    }
  }

  private final List<Slot<C>> slots = new ArrayList<>();
  private int next;

  void add(C consumer, int maxInFlight) {
    slots.add(new Slot<>(consumer, maxInFlight));
  }

  boolean remove(C consumer) {
    for (int i = 0; i < slots.size(); i++) {
      if (slots.get(i).consumer.equals(consumer)) {
        slots.remove(i);
        if (i < next) {
          next--;
        }
        return true;
      }
    }
    return false;
  }

  boolean contains(C consumer) {
    return slot(consumer) != null;
  }

  boolean isEmpty() {
    return slots.isEmpty();
  }

  int size() {
    return slots.size();
  }

  int totalCredit() {
    return slots.stream().mapToInt(s -> s.maxInFlight).sum();
  }

  /** The next consumer after the last one served that has credit, taking one credit; null if none. */
  C take() {
    for (int i = 0; i < slots.size(); i++) {
      Slot<C> slot = slots.get((next + i) % slots.size());
      if (slot.inFlight < slot.maxInFlight) {
        slot.inFlight++;
        next = (next + i + 1) % slots.size();
        return slot.consumer;
      }
    }
    return null;
  }

  /** Every consumer with credit, each taking one (fan-out). */
  List<C> takeEach() {
    List<C> out = new ArrayList<>();
    takeEach(out::add);
    return out;
  }

  /** As {@link #takeEach()}, handing each consumer to {@code each}: nothing is allocated per message. */
  void takeEach(Consumer<C> each) {
    for (int i = 0; i < slots.size(); i++) {
      Slot<C> slot = slots.get(i);
      if (slot.inFlight < slot.maxInFlight) {
        slot.inFlight++;
        each.accept(slot.consumer);
      }
    }
  }

  /** Checked before every delivery: a plain loop, no stream. */
  boolean anyCredit() {
    for (int i = 0; i < slots.size(); i++) {
      Slot<C> slot = slots.get(i);
      if (slot.inFlight < slot.maxInFlight) {
        return true;
      }
    }
    return false;
  }

  /** Gives back one credit (an ack, nack or timeout of that consumer's delivery). */
  void release(C consumer) {
    Slot<C> slot = slot(consumer);
    if (slot != null && slot.inFlight > 0) {
      slot.inFlight--;
    }
  }

  private Slot<C> slot(C consumer) {
    for (Slot<C> s : slots) {
      if (s.consumer.equals(consumer)) {
        return s;
      }
    }
    return null;
  }
}
