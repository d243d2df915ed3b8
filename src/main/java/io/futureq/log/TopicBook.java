package io.futureq.log;

import com.google.protobuf.InvalidProtocolBufferException;
import io.futureq.log.proto.TopicMeta;
import io.futureq.metrics.TopicMetrics;
import io.futureq.storage.OrderedStore;
import io.futureq.storage.OrderedStore.Space;
import io.futureq.storage.StorageKeys;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The state machine's per-topic bookkeeping (pending count, registered groups), cached in memory.
 * Changes made while preparing an entry stay "touched" until the entry commits or is abandoned.
 */
final class TopicBook {
  private final OrderedStore store;
  /** Committed pending counts of every known topic; read by other threads for limits and stats. */
  private final Map<String, Long> pending = new ConcurrentHashMap<>();
  private final Map<String, List<String>> groups = new HashMap<>();
  private final Map<String, Long> touchedPending = new HashMap<>();
  private final Map<String, List<String>> touchedGroups = new HashMap<>();
  /** Topics deleted by the entry being prepared (unless stored to again after). */
  private final Set<String> touchedDropped = new HashSet<>();
  private final DueDeltas touchedDue;
  private final DueCounts dueCounts;

  TopicBook(OrderedStore store, long bucketMs) {
    this.store = store;
    this.touchedDue = new DueDeltas(bucketMs);
    this.dueCounts = new DueCounts(store, bucketMs);
    byte[] prefix = StorageKeys.topicMetaPrefix();
    try (OrderedStore.View view = store.view();
        OrderedStore.RangeIterator it = view.range(Space.INDEX, prefix, StorageKeys.prefixEnd(prefix))) {
      for (; it.valid(); it.next()) {
        TopicMeta meta = TopicMeta.parseFrom(it.value());
        pending.put(meta.getName(), meta.getPending());
      }
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("corrupt topic metadata", e);
    }
  }

  /** Committed pending count, or -1 for a topic never seen; safe from any thread. */
  long committedPendingOrMinusOne(String topic) {
    return pending.getOrDefault(topic, -1L);
  }

  /** Topics known, committed; safe from any thread. */
  int topicCount() {
    return pending.size();
  }

  long pending(String topic) {
    Long touched = touchedPending.get(topic);
    return touched != null ? touched : touchedDropped.contains(topic) ? 0 : committedPending(topic);
  }

  /** Whether the topic has metadata (it stored a message or a group and was not deleted since). */
  boolean known(String topic) {
    if (touchedPending.containsKey(topic)) {
      return true;
    }
    return !touchedDropped.contains(topic)
        && (pending.containsKey(topic) || store.get(Space.INDEX, StorageKeys.topicMeta(topic)) != null);
  }

  /** Forgets the topic's count and groups; the caller deletes its messages and group registrations. */
  void dropTopic(String topic) {
    touchedDropped.add(topic);
    touchedPending.remove(topic);
    touchedGroups.put(topic, List.of());
  }

  void removeGroup(String topic, String group) {
    List<String> updated = new ArrayList<>(groups(topic));
    updated.remove(group);
    touchedGroups.put(topic, updated);
  }

  void addPending(String topic, long delta) {
    touchedPending.put(topic, pending(topic) + delta);
  }

  /** {@code delta} messages of {@code topic} stored (or, negative, removed) under {@code storageKey}. */
  void countDue(String topic, byte[] storageKey, long delta) {
    touchedDue.add(topic, storageKey, delta);
  }

  DueCounts dueCounts() {
    return dueCounts;
  }

  List<String> groups(String topic) {
    List<String> touched = touchedGroups.get(topic);
    return touched != null ? touched : committedGroups(topic);
  }

  void addGroup(String topic, String group) {
    List<String> updated = new ArrayList<>(groups(topic));
    updated.add(group);
    touchedGroups.put(topic, updated);
    if (!touchedPending.containsKey(topic)) {
      touchedPending.put(topic, pending(topic));
    }
  }

  void writeTouched(ApplyContext ctx) {
    touchedDropped.stream().filter(t -> !touchedPending.containsKey(t))
        .forEach(t -> ctx.delete(Space.INDEX, StorageKeys.topicMeta(t)));
    touchedPending.forEach((topic, count) -> ctx.put(Space.INDEX, StorageKeys.topicMeta(topic),
        TopicMeta.newBuilder().setName(topic).setPending(count).build().toByteArray()));
  }

  void commitTouched(long index) {
    dueCounts.committed(index, touchedDue.drain());
    touchedDropped.stream().filter(t -> !touchedPending.containsKey(t)).forEach(t -> {
      pending.remove(t);
      TopicMetrics.forget(t);
    });
    pending.putAll(touchedPending);
    touchedPending.forEach((topic, count) -> TopicMetrics.of(topic).pending.update(count));
    groups.putAll(touchedGroups);
    dropTouched();
  }

  void dropTouched() {
    touchedPending.clear();
    touchedGroups.clear();
    touchedDropped.clear();
    touchedDue.clear();
  }

  /** Drops every cached count and group list; they are read again from the store on next use. */
  void forget() {
    pending.clear();
    groups.clear();
    dropTouched();
    dueCounts.forgetAll();
  }

  private long committedPending(String topic) {
    return pending.computeIfAbsent(topic, t -> {
      byte[] bytes = store.get(Space.INDEX, StorageKeys.topicMeta(t));
      try {
        return bytes == null ? 0L : TopicMeta.parseFrom(bytes).getPending();
      } catch (InvalidProtocolBufferException e) {
        throw new IllegalStateException("corrupt metadata of topic " + t, e);
      }
    });
  }

  private List<String> committedGroups(String topic) {
    return groups.computeIfAbsent(topic, t -> List.copyOf(GroupRegistry.read(store, t)));
  }
}
