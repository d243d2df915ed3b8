package io.futureq.metrics;

import java.util.concurrent.ConcurrentHashMap;
import kamon.Kamon;
import kamon.metric.Counter;
import kamon.metric.Gauge;

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

  /** Kamon keeps each topic's instruments registered anyway; this only saves finding them again. */
  private static final ConcurrentHashMap<String, TopicMetrics> BY_TOPIC = new ConcurrentHashMap<>();

  public final Counter published;
  public final Counter expired;
  public final Counter cancelled;
  public final Gauge pending;

  private TopicMetrics(String topic) {
    published = Kamon.counter(PUBLISHED, "Messages stored (duplicates by key not counted).").withTag("topic", topic);
    expired = Kamon.counter(EXPIRED, "Messages removed because their TTL ran out.").withTag("topic", topic);
    cancelled = Kamon.counter(CANCELLED, "Messages removed by Producer.Cancel.").withTag("topic", topic);
    pending = Kamon.gauge(PENDING, "Stored messages not yet removed.").withTag("topic", topic);
  }

  public static TopicMetrics of(String topic) {
    return BY_TOPIC.computeIfAbsent(topic, TopicMetrics::new);
  }
}
