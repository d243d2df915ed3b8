package io.futureq.topic;

import io.futureq.log.GroupRegistry;
import io.futureq.log.LogShards;
import io.futureq.metrics.GroupMetrics;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import kamon.Kamon;

/**
 * The per-group gauges of the topics this node hosts: every durable group's lag and oldest unacked age, read as
 * {@code futureq stats} reads them ({@link GroupBacklogReader}), and its delivery counters and in-flight gauge
 * (which its actor updates) held open, so that they are there whether or not a consumer is attached. Sampled on
 * the metrics tick, never on the delivery path: one read of the topic's ack marks and of its oldest due messages
 * per hosted topic per tick. A group's series go when it is deleted or its topic leaves this node.
 * Not thread-safe: one sampler thread calls {@link #run}, and {@link #close} once it no longer does.
 */
public final class GroupBacklogGauges implements Runnable, AutoCloseable {
  private static final double MILLIS = 1e3;

  private final LogShards shards;
  private final long bucketMs;
  private final LocalTopics topics;
  private final InstantSource clock;
  /** The groups sampled, by (topic, group), in name order. */
  private final Map<List<String>, GroupMetrics> held = new TreeMap<>(GroupBacklogGauges::compare);

  /** Reads each hosted topic from its log shard's store. */
  public GroupBacklogGauges(LogShards shards, LocalTopics topics, InstantSource clock) {
    this.shards = shards;
    this.bucketMs = shards.bucketMs();
    this.topics = topics;
    this.clock = clock;
  }

  /** Takes up the groups that appeared, lets go of those that went, and reads the backlogs of the others. */
  @Override
  public void run() {
    Map<String, List<String>> groups = new TreeMap<>();
    for (String topic : new TreeSet<>(topics.names())) {
      List<String> registered = GroupRegistry.read(shards.of(topic).store(), topic);
      if (!registered.isEmpty()) {
        groups.put(topic, new ArrayList<>(new TreeSet<>(registered)));
      }
    }
    held.entrySet().removeIf(e -> {
      List<String> names = groups.get(e.getKey().get(0));
      if (names != null && names.contains(e.getKey().get(1))) {
        return false;
      }
      e.getValue().release(0);
      return true;
    });
    groups.forEach((topic, names) -> names.forEach(g -> held.computeIfAbsent(List.of(topic, g),
        k -> GroupMetrics.acquire(topic, g))));
    long now = clock.millis();
    int overLimit = 0;
    Map<String, List<String>> own = new HashMap<>();
    for (Map.Entry<List<String>, GroupMetrics> e : held.entrySet()) {
      if (e.getValue().own()) {
        own.computeIfAbsent(e.getKey().get(0), t -> new ArrayList<>()).add(e.getKey().get(1));
      } else {
        overLimit++;
      }
    }
    own.forEach((topic, names) -> {
      for (GroupBacklog b : GroupBacklogReader.read(shards.of(topic).store(), topic, names, bucketMs, now)) {
        held.get(List.of(topic, b.group())).backlog(b.lag(), b.oldestUnackedDueAgeMs() / MILLIS);
      }
    });
    Kamon.gauge("futureq.group.series.over.limit", "Durable groups hosted here beyond futureq.metrics."
        + "max-group-series: no lag or age series; their counters are in their topic's group=\"_other\" series.")
        .withoutTags().update(overLimit);
  }

  /** Lets go of every group: their series leave with their actors (a node stopping, or a test's node). */
  @Override
  public void close() {
    held.values().forEach(m -> {
      m.dropBacklog();
      m.release(0);
    });
    held.clear();
  }

  private static int compare(List<String> a, List<String> b) {
    int byTopic = a.get(0).compareTo(b.get(0));
    return byTopic != 0 ? byTopic : a.get(1).compareTo(b.get(1));
  }
}
