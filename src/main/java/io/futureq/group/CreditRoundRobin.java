package io.futureq.group;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Live consumers of a group in round-robin order, each with its credit: at most {@code maxInFlight} deliveries
 * and {@code maxInFlightBytes} payload bytes held unacked. The bytes bound what a consumer with large messages
 * holds (credit alone would let 1,000 messages of 1 MiB go out); a consumer holding nothing may always take one
 * message, however large, so that a message larger than the bound still goes out, alone.
 */
final class CreditRoundRobin<C> {
  private static final class Slot<C> {
    final C consumer;
    final int maxInFlight;
    final long maxBytes;
    int inFlight;
    long bytes;

    Slot(C consumer, int maxInFlight, long maxBytes) {
      this.consumer = consumer;
      this.maxInFlight = maxInFlight;
      this.maxBytes = maxBytes;
    }

    /** Room for one more message (of unknown size): neither bound is reached. */
    boolean hasCredit() {
      return inFlight < maxInFlight && bytes < maxBytes;
    }

    boolean fits(long size) {
      return inFlight < maxInFlight && (inFlight == 0 || bytes + size <= maxBytes);
    }

    void take(long size) {
      inFlight++;
      bytes += size;
    }
  }

  private final List<Slot<C>> slots = new ArrayList<>();
  private int next;

  /** @param maxInFlightBytes payload bytes the consumer may hold; 0 or less: no bound in bytes */
  void add(C consumer, int maxInFlight, long maxInFlightBytes) {
    slots.add(new Slot<>(consumer, maxInFlight, maxInFlightBytes <= 0 ? Long.MAX_VALUE : maxInFlightBytes));
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

  /**
   * The next consumer after the last one served with room for a message of {@code size} payload bytes, taking
   * one credit and those bytes; null if none has room.
   */
  C take(long size) {
    for (int i = 0; i < slots.size(); i++) {
      Slot<C> slot = slots.get((next + i) % slots.size());
      if (slot.fits(size)) {
        slot.take(size);
        next = (next + i + 1) % slots.size();
        return slot.consumer;
      }
    }
    return null;
  }

  /** Every consumer with room for a message of {@code size} bytes, each taking one credit and the bytes (fan-out). */
  List<C> takeEach(long size) {
    List<C> out = new ArrayList<>();
    takeEach(size, out::add);
    return out;
  }

  /** As {@link #takeEach(long)}, handing each consumer to {@code each}: nothing is allocated per message. */
  void takeEach(long size, Consumer<C> each) {
    for (int i = 0; i < slots.size(); i++) {
      Slot<C> slot = slots.get(i);
      if (slot.fits(size)) {
        slot.take(size);
        each.accept(slot.consumer);
      }
    }
  }

  /** Checked before every delivery: a plain loop, no stream. */
  boolean anyCredit() {
    for (int i = 0; i < slots.size(); i++) {
      if (slots.get(i).hasCredit()) {
        return true;
      }
    }
    return false;
  }

  /** Gives back {@code count} credits and {@code bytes} (acks, nacks or timeouts of that consumer's deliveries). */
  void release(C consumer, int count, long bytes) {
    Slot<C> slot = slot(consumer);
    if (slot != null) {
      slot.inFlight = Math.max(0, slot.inFlight - count);
      slot.bytes = slot.inFlight == 0 ? 0 : Math.max(0, slot.bytes - bytes);
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
