package io.futureq.metrics;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import kamon.Kamon;
import kamon.metric.Counter;
import kamon.metric.Gauge;
import kamon.metric.Histogram;
import kamon.metric.Metric;
import kamon.tag.TagSet;

/**
 * Instruments of one consumer group (tags: topic, group; the universal subscribers are group ""), shared by the
 * group's actor and the node's backlog sampler, each of which {@link #acquire}s and {@link #release}s them. A node
 * exports at most {@link #limit} groups' series: a group beyond it shares its topic's {@link #OVERFLOW} series,
 * which have no lag or age. The series of a group go when the last holder releases it (its actor stopped and the
 * group deleted or its topic gone from this node).
 */
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
  /** Stored messages the group has not acked, due or not (the LAG of {@code futureq stats}). */
  public static final String LAG = "futureq.group.lag";
  /** Age of the oldest due message the group has not acked, seconds (OLDEST UNACKED of {@code futureq stats}). */
  public static final String OLDEST_UNACKED_AGE = "futureq.group.oldest.unacked.age.seconds";
  /** The group label of a topic's series shared by its groups beyond the limit. */
  public static final String OVERFLOW = "_other";

  private static final List<String> PER_GROUP = List.of(DELIVERED, REDELIVERED, ACKED, NACKED, DEAD_LETTERED);
  private static final Map<String, String> HELP = Map.of(
      DELIVERED, "Deliveries sent to consumers, first attempts and redeliveries.",
      REDELIVERED, "Deliveries after the first (in-flight timeout, nack or consumer loss).",
      ACKED, "Acks received.",
      NACKED, "Nacks received.",
      DEAD_LETTERED, "Messages moved to the dead-letter topic after max-deliveries.",
      IN_FLIGHT, "Deliveries sent and not yet acked.",
      LAG, "Stored messages the group has not acked, due or not (LAG in futureq stats); sampled every tick on the "
          + "node hosting the topic.",
      OLDEST_UNACKED_AGE, "Age of the group's oldest due message not acked yet, seconds (0: none); sampled every tick "
          + "on the node hosting the topic.");
  private static final Map<List<String>, GroupMetrics> OPEN = new HashMap<>();
  private static int limit = 1000;
  private static int ownSeries;

  public final Counter delivered;
  public final Counter redelivered;
  public final Counter acked;
  public final Counter nacked;
  public final Counter deadLettered;
  public final Gauge inFlight;
  /** The topic's histogram ({@link TopicMetrics#lateness}), in microseconds. */
  public final Histogram lateness;
  private final List<String> key;
  private final TagSet tags;
  private final boolean own;
  /** Guarded by the class lock. */
  private int holders;

  private GroupMetrics(String topic, String group, boolean own) {
    this.key = List.of(topic, group);
    this.own = own;
    this.tags = TagSet.builder().add("topic", topic).add("group", group).build();
    delivered = counter(DELIVERED).withTags(tags);
    redelivered = counter(REDELIVERED).withTags(tags);
    acked = counter(ACKED).withTags(tags);
    nacked = counter(NACKED).withTags(tags);
    deadLettered = counter(DEAD_LETTERED).withTags(tags);
    inFlight = gauge(IN_FLIGHT).withTags(tags);
    lateness = TopicMetrics.of(topic).lateness;
  }

  /** The metric of that name, always with its one HELP text (Kamon warns of a second description). */
  private static Metric.Counter counter(String name) {
    return Kamon.counter(name, HELP.get(name));
  }

  private static Metric.Gauge gauge(String name) {
    return Kamon.gauge(name, HELP.get(name));
  }

  /** How many groups get series of their own on this node ({@code futureq.metrics.max-group-series}). */
  public static synchronized void limit(int groups) {
    limit = groups;
  }

  /** The group's instruments, or its topic's overflow ones when the node exports as many groups as it may. */
  public static synchronized GroupMetrics acquire(String topic, String group) {
    GroupMetrics metrics = OPEN.get(List.of(topic, group));
    if (metrics == null && ownSeries >= limit) {
      metrics = OPEN.get(List.of(topic, OVERFLOW));
      group = OVERFLOW;
    }
    if (metrics == null) {
      metrics = new GroupMetrics(topic, group, !group.equals(OVERFLOW));
      OPEN.put(metrics.key, metrics);
      ownSeries += metrics.own ? 1 : 0;
    }
    metrics.holders++;
    return metrics;
  }

  /** Whether these are the group's own series (not its topic's overflow series). */
  public boolean own() {
    return own;
  }

  /** Sets the group's backlog gauges: its lag and the age of its oldest unacked due message (0: none). */
  public void backlog(long lag, double oldestUnackedAgeSeconds) {
    gauge(LAG).withTags(tags).update(lag);
    gauge(OLDEST_UNACKED_AGE).withTags(tags).update(oldestUnackedAgeSeconds);
  }

  /** Removes the backlog gauges (the group is no longer sampled here). */
  public void dropBacklog() {
    synchronized (GroupMetrics.class) {
      gauge(LAG).remove(tags);
      gauge(OLDEST_UNACKED_AGE).remove(tags);
    }
  }

  /**
   * Gives these instruments back, with the deliveries the holder still had in flight (dropped with it); the last
   * holder's release removes the group's series (under the lock, so that a group of that name acquired meanwhile
   * keeps its own).
   */
  public void release(int inFlightLeft) {
    inFlight.decrement(inFlightLeft);
    synchronized (GroupMetrics.class) {
      if (--holders > 0) {
        return;
      }
      OPEN.remove(key);
      ownSeries -= own ? 1 : 0;
      PER_GROUP.forEach(name -> counter(name).remove(tags));
      gauge(IN_FLIGHT).remove(tags);
      gauge(LAG).remove(tags);
      gauge(OLDEST_UNACKED_AGE).remove(tags);
    }
  }
}
