package io.futureq.group;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Live consumers of a group in round-robin order, each with its credit: at most {@code maxInFlight} deliveries
 * and {@code maxInFlightBytes} payload bytes held unacked. The bytes bound what a consumer with large messages
 * holds (credit alone would let 1,000 messages of 1 MiB go out); a consumer holding nothing may always take one
 * message, however large, so that a message larger than the bound still goes out, alone.
 *
 * <p>A consumer whose credit ran out is refilled once {@link #refillAt} of it came back, not at each ack: a
 * consumer that acks one message per frame (any gRPC client may) with a small credit would otherwise be sent a
 * frame of one delivery per ack, and the broker's cost is per frame (the silly window of TCP, avoided the same way).
 * It never starves: a consumer holding nothing may always take a message, and one refilled takes until it is full.
 */
final class CreditRoundRobin<C> {
  /** A refill never waits for more than this many credits to come back: batches beyond it save little. */
  static final int MAX_REFILL = 64;

  private static final class Slot<C> {
    final C consumer;
    final int maxInFlight;
    final long maxBytes;
    final int refillAt;
    int inFlight;
    long bytes;
    /** Taking deliveries: from a refill until its credit is used up. */
    boolean open = true;

    Slot(C consumer, int maxInFlight, long maxBytes) {
      this.consumer = consumer;
      this.maxInFlight = maxInFlight;
      this.maxBytes = maxBytes;
      this.refillAt = refillAt(maxInFlight);
    }

    /** Whether it may take deliveries now: it is being filled, holds nothing, or enough credit came back. */
    boolean open() {
      if (!open) {
        open = inFlight == 0 || maxInFlight - inFlight >= refillAt;
      }
      return open;
    }

    /** Room for one more message (of unknown size): open, and neither bound is reached. */
    boolean hasCredit() {
      return open() && inFlight < maxInFlight && bytes < maxBytes;
    }

    boolean fits(long size) {
      return open() && inFlight < maxInFlight && (inFlight == 0 || bytes + size <= maxBytes);
    }

    void take(long size) {
      inFlight++;
      bytes += size;
      if (inFlight >= maxInFlight) {
        open = false;
      }
    }
  }

  /** Credits that must come back before a consumer whose credit ran out is sent more: half, at most 64. */
  static int refillAt(int maxInFlight) {
    return Math.max(1, Math.min(MAX_REFILL, (maxInFlight + 1) / 2));
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
