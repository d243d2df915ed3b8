package io.futureq.log;

import io.futureq.storage.StorageKeys;
import java.util.HashMap;
import java.util.Map;

/**
 * The due counts the entry being prepared changes, per topic and due second, gathered where messages are stored,
 * moved and removed; {@link DueCounts} takes them when the entry commits. A run of messages of one topic and one
 * second (a request's messages published with one delay) costs a comparison each and one map update.
 */
final class DueDeltas {
  private final long bucketMs;
  private final Map<String, Map<Long, Long>> touched = new HashMap<>();
  private String runTopic;
  private long runSecond;
  private long runDelta;

  DueDeltas(long bucketMs) {
    this.bucketMs = bucketMs;
  }

  /** {@code delta} messages of {@code topic} under storage key {@code storageKey} (which names the due bucket). */
  void add(String topic, byte[] storageKey, long delta) {
    long second = Math.floorDiv(StorageKeys.dueBucketOf(storageKey) * bucketMs, 1000);
    if (second == runSecond && topic.equals(runTopic)) {
      runDelta += delta;
      return;
    }
    flushRun();
    runTopic = topic;
    runSecond = second;
    runDelta = delta;
  }

  /** The entry's changes, per topic and second; clears them. */
  Map<String, Map<Long, Long>> drain() {
    flushRun();
    Map<String, Map<Long, Long>> out = new HashMap<>(touched);
    touched.clear();
    return out;
  }

  void clear() {
    touched.clear();
    runTopic = null;
    runDelta = 0;
  }

  private void flushRun() {
    if (runTopic != null && runDelta != 0) {
      touched.computeIfAbsent(runTopic, t -> new HashMap<>()).merge(runSecond, runDelta, Long::sum);
    }
    runTopic = null;
    runDelta = 0;
  }
}
