package io.futureq.metrics;

import kamon.Kamon;
import kamon.metric.Counter;
import kamon.metric.Gauge;

/** Instruments of one topic. */
public final class TopicMetrics {
  /** Messages stored (duplicates by key not counted). */
  public static final String PUBLISHED = "futureq.published";
  /** Messages removed because their TTL ran out. */
  public static final String EXPIRED = "futureq.expired";
  /** Messages removed by Producer.Cancel. */
  public static final String CANCELLED = "futureq.cancelled";
  /** Stored messages not yet removed. */
  public static final String PENDING = "futureq.pending";

  private TopicMetrics() {}

  public static Counter published(String topic) {
    return Kamon.counter(PUBLISHED, "Messages stored (duplicates by key not counted).")
        .withTag("topic", topic);
  }

  public static Counter expired(String topic) {
    return Kamon.counter(EXPIRED, "Messages removed because their TTL ran out.")
        .withTag("topic", topic);
  }

  public static Counter cancelled(String topic) {
    return Kamon.counter(CANCELLED, "Messages removed by Producer.Cancel.")
        .withTag("topic", topic);
  }

  public static Gauge pending(String topic) {
    return Kamon.gauge(PENDING, "Stored messages not yet removed.")
        .withTag("topic", topic);
  }
}
