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
  /** Delivery time minus due time of first deliveries. */
  public static final String LATENESS = "futureq.delivery.lateness";

  public final Counter delivered;
  public final Counter redelivered;
  public final Counter acked;
  public final Counter nacked;
  public final Counter deadLettered;
  public final Gauge inFlight;
  public final Histogram lateness;

  public GroupMetrics(String topic, String group) {
    delivered = Kamon.counter(DELIVERED).withTag("topic", topic).withTag("group", group);
    redelivered = Kamon.counter(REDELIVERED).withTag("topic", topic).withTag("group", group);
    acked = Kamon.counter(ACKED).withTag("topic", topic).withTag("group", group);
    nacked = Kamon.counter(NACKED).withTag("topic", topic).withTag("group", group);
    deadLettered = Kamon.counter(DEAD_LETTERED).withTag("topic", topic).withTag("group", group);
    inFlight = Kamon.gauge(IN_FLIGHT).withTag("topic", topic).withTag("group", group);
    lateness = Kamon.histogram(LATENESS, MeasurementUnit.time().milliseconds()).withTag("topic", topic);
  }
}
