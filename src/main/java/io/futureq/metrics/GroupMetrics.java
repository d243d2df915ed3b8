package io.futureq.metrics;

import kamon.Kamon;
import kamon.metric.Counter;
import kamon.metric.Gauge;
import kamon.metric.Histogram;
import kamon.metric.MeasurementUnit;

/** Instruments of one consumer group (tags: topic, group; the universal subscribers are group ""). */
public final class GroupMetrics {
  /** Deliveries sent to consumers, first attempts and redeliveries. */
  public static final String DELIVERED = "futureq.delivered";
  /** Deliveries after the first (timeout, nack or consumer loss). */
  public static final String REDELIVERED = "futureq.redelivered";
  /** Acks received. */
  public static final String ACKED = "futureq.acked";
  /** Nacks received. */
  public static final String NACKED = "futureq.nacked";
  /** Messages moved to the dead-letter topic after max-deliveries. */
  public static final String DEAD_LETTERED = "futureq.dead.lettered";
  /** Deliveries awaiting an ack. */
  public static final String IN_FLIGHT = "futureq.in.flight";
  /** Delivery time minus due time of first deliveries, recorded in microseconds. */
  public static final String LATENESS = "futureq.delivery.lateness";

  public final Counter delivered;
  public final Counter redelivered;
  public final Counter acked;
  public final Counter nacked;
  public final Counter deadLettered;
  public final Gauge inFlight;
  /** Record microseconds: the exported buckets start below a millisecond. */
  public final Histogram lateness;

  public GroupMetrics(String topic, String group) {
    delivered = counter(DELIVERED, "Deliveries sent to consumers, first attempts and redeliveries.", topic, group);
    redelivered = counter(REDELIVERED, "Deliveries after the first (in-flight timeout, nack or consumer loss).",
        topic, group);
    acked = counter(ACKED, "Acks received.", topic, group);
    nacked = counter(NACKED, "Nacks received.", topic, group);
    deadLettered = counter(DEAD_LETTERED, "Messages moved to the dead-letter topic after max-deliveries.", topic,
        group);
    inFlight = Kamon.gauge(IN_FLIGHT, "Deliveries sent and not yet acked.").withTag("topic", topic)
        .withTag("group", group);
    lateness = Kamon.histogram(LATENESS, "Delivery time minus due time of first deliveries.",
        MeasurementUnit.time().microseconds()).withTag("topic", topic);
  }

  private static Counter counter(String name, String help, String topic, String group) {
    return Kamon.counter(name, help).withTag("topic", topic).withTag("group", group);
  }
}
