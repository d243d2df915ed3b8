package io.futureq.metrics;

import java.util.concurrent.ConcurrentHashMap;
import kamon.Kamon;
import kamon.metric.Counter;
import kamon.metric.Gauge;
import kamon.metric.Histogram;
import kamon.metric.MeasurementUnit;

/**
 * Instruments of one topic, created once per topic ({@link #of}) rather than looked up by name and tag on
 * every use: they are updated on the log's apply thread for every entry.
 */
public final class TopicMetrics {
  /** Messages stored (duplicates by key not counted). */
  public static final String PUBLISHED = "futureq.published";
  /** Messages removed because their TTL ran out. */
  public static final String EXPIRED = "futureq.expired";
  /** Messages removed by Producer.Cancel. */
  public static final String CANCELLED = "futureq.cancelled";
  /** Stored messages not yet removed. */
  public static final String PENDING = "futureq.pending";
  /** Delivery time minus due time of first deliveries, recorded in microseconds. */
  public static final String LATENESS = "futureq.delivery.lateness";

  /** Kamon keeps each topic's instruments registered anyway; this only saves finding them again. */
  private static final ConcurrentHashMap<String, TopicMetrics> BY_TOPIC = new ConcurrentHashMap<>();

  public final Counter published;
  public final Counter expired;
  public final Counter cancelled;
  public final Gauge pending;
  /** Record microseconds: the exported buckets start below a millisecond. */
  public final Histogram lateness;

  private TopicMetrics(String topic) {
    published = Kamon.counter(PUBLISHED, "Messages stored (duplicates by key not counted).").withTag("topic", topic);
    expired = Kamon.counter(EXPIRED, "Messages removed because their TTL ran out.").withTag("topic", topic);
    cancelled = Kamon.counter(CANCELLED, "Messages removed by Producer.Cancel.").withTag("topic", topic);
    pending = Kamon.gauge(PENDING, "Stored messages not yet removed.").withTag("topic", topic);
    lateness = Kamon.histogram(LATENESS, "Delivery time minus due time of first deliveries.",
        MeasurementUnit.time().microseconds()).withTag("topic", topic);
  }

  /** The topic's instruments, all of them registered (at zero) on first use, so each series is there at once. */
  public static TopicMetrics of(String topic) {
    return BY_TOPIC.computeIfAbsent(topic, TopicMetrics::new);
  }

  /** The topic was deleted: its series go from the scrape (a topic of that name stored to again starts afresh). */
  public static void forget(String topic) {
    TopicMetrics gone = BY_TOPIC.remove(topic);
    if (gone != null) {
      for (String name : new String[] {PUBLISHED, EXPIRED, CANCELLED}) {
        Kamon.counter(name).remove(gone.published.tags());
      }
      Kamon.gauge(PENDING).remove(gone.published.tags());
      Kamon.histogram(LATENESS).remove(gone.published.tags());
    }
  }
}
