package io.futureq.group;

import io.futureq.metrics.GroupMetrics;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * A group's deliveries in flight, and the timer of their timeout. A delivery holds its consumer's credit
 * until the consumer acks or nacks it, its message is removed or the consumer leaves. One that times out is
 * handed back to be delivered again, but its credit stays taken until the consumer answers it. Owned by one
 * {@link ConsumerGroup}, not thread-safe.
 */
final class InFlightDeliveries {
  private final InFlightTable<LiveConsumer> table = new InFlightTable<>();
  private final CreditRoundRobin<LiveConsumer> consumers;
  private final TimerScheduler<ConsumerGroup.Command> timers;
  private final Duration timeout;
  private final GroupMetrics metrics;
  private final InstantSource clock;
  private long timerAt = Long.MAX_VALUE;

  /** @param consumers the group's consumers, whose credit the deliveries hold */
  InFlightDeliveries(CreditRoundRobin<LiveConsumer> consumers, TimerScheduler<ConsumerGroup.Command> timers,
      Duration timeout, GroupMetrics metrics, InstantSource clock) {
    this.clock = clock;
    this.consumers = consumers;
    this.timers = timers;
    this.timeout = timeout;
    this.metrics = metrics;
  }

  /** Holds the delivery queued to {@code consumer} under {@code tag} until it is answered or times out. */
  void add(LiveConsumer consumer, long tag, DueMessage message, int attempt, long nowMs) {
    long deadline = nowMs + timeout.toMillis();
    table.add(new InFlightTable.Entry<>(consumer, tag, message, attempt, deadline));
    metrics.inFlight.increment();
    if (timerAt == Long.MAX_VALUE) {
      // Every delivery has the same timeout: one already armed fires no later than this one's.
      timerAt = deadline;
      timers.startSingleTimer("in-flight", new ConsumerGroup.InFlightDue(), ConsumerGroup.timerDelay(deadline, nowMs));
    }
  }

  /**
   * Takes the named deliveries out of flight for the consumer that acks or nacks them. Tags already
   * settled are ignored; a late answer to a timed-out delivery gives its credit back.
   */
  List<InFlightTable.Entry<LiveConsumer>> claim(LiveConsumer consumer, TagRanges tags) {
    List<InFlightTable.Entry<LiveConsumer>> claimed = new ArrayList<>();
    int count = 0;
    long bytes = 0;
    for (int r = 0; r < tags.size(); r++) {
      claimed.addAll(table.removeRange(consumer, tags.first(r), tags.last(r)));
      if (!consumer.timedOut.isEmpty()) {
        // A late answer to a timed-out delivery: the consumer is alive after all, its credit returns.
        Map<Long, Integer> answered = consumer.timedOut.subMap(tags.first(r), true, tags.last(r), true);
        for (int size : answered.values()) {
          count++;
          bytes += size;
        }
        answered.clear();
      }
    }
    for (int i = 0; i < claimed.size(); i++) {
      bytes += claimed.get(i).message.payloadBytes();
    }
    consumers.release(consumer, count + claimed.size(), bytes);
    metrics.inFlight.decrement(claimed.size());
    return claimed;
  }

  /**
   * The in-flight timer fired: takes out and returns the deliveries past their deadline, and arms the timer
   * for the next deadline.
   */
  List<InFlightTable.Entry<LiveConsumer>> expire(long nowMs) {
    timerAt = Long.MAX_VALUE;
    List<InFlightTable.Entry<LiveConsumer>> expired = table.removeExpired(nowMs);
    metrics.inFlight.decrement(expired.size());
    for (InFlightTable.Entry<LiveConsumer> e : expired) {
      // The credit stays taken until the consumer answers that delivery: a consumer that stopped
      // reading runs out of credit instead of being handed the redeliveries again and again.
      e.consumer.timedOut.put(e.tag, e.message.payloadBytes());
    }
    armTimer();
    return expired;
  }

  /**
   * Drops the deliveries of removed messages: they are not recalled, but their credit returns and their
   * acks are ignored. Returns whether any was in flight.
   */
  boolean removeMessages(Set<ByteBuffer> storageKeys) {
    List<InFlightTable.Entry<LiveConsumer>> gone =
        table.removeMessages(m -> storageKeys.contains(ByteBuffer.wrap(m.storageKey())));
    gone.forEach(e -> consumers.release(e.consumer, 1, e.message.payloadBytes()));
    metrics.inFlight.decrement(gone.size());
    return !gone.isEmpty();
  }

  /** Takes out and returns, in tag order, the deliveries held by a consumer that left. */
  List<InFlightTable.Entry<LiveConsumer>> removeConsumer(LiveConsumer consumer) {
    List<InFlightTable.Entry<LiveConsumer>> held = table.removeConsumer(consumer);
    metrics.inFlight.decrement(held.size());
    return held;
  }

  int size() {
    return table.size();
  }

  private void armTimer() {
    long at = table.earliestDeadline();
    if (at != Long.MAX_VALUE && at < timerAt) {
      timerAt = at;
      timers.startSingleTimer("in-flight", new ConsumerGroup.InFlightDue(),
          ConsumerGroup.timerDelay(at, clock.millis()));
    }
  }
}
