package io.futureq.log;

import io.futureq.storage.OrderedStore;
import io.futureq.storage.OrderedStore.Space;
import io.futureq.storage.StorageKeys;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * Counts of stored messages per topic and due second, kept in memory by this replica for the console's timeline,
 * so that a window is answered from counters and never by reading messages.
 *
 * <p>A topic is counted from the first time someone asks for it: {@link #of} reads its message keys once (keys
 * only, on the given executor), and from then on every committed entry adjusts its counters where it stores, moves
 * or removes messages. Topics nobody asked for cost the apply path only the gathering of each entry's changes
 * ({@link DueDeltas}), which are then dropped. A store replaced by a snapshot install forgets every count.
 */
public final class DueCounts {
  private final OrderedStore store;
  private final long bucketMs;
  private final Map<String, Counting> topics = new ConcurrentHashMap<>();

  private record Counting(TopicDueCounts counts, CompletableFuture<TopicDueCounts> ready) {}

  DueCounts(OrderedStore store, long bucketMs) {
    this.store = store;
    this.bucketMs = bucketMs;
  }

  /** The topic's counts, once counted; the first call reads its keys on {@code executor}. Safe from any thread. */
  public CompletableFuture<TopicDueCounts> of(String topic, Executor executor) {
    Counting existing = topics.get(topic);
    if (existing != null) {
      return existing.ready();
    }
    Counting created = new Counting(new TopicDueCounts(), new CompletableFuture<>());
    Counting raced = topics.putIfAbsent(topic, created);
    if (raced != null) {
      return raced.ready();
    }
    // Registered before the view is taken: every entry committed from now on reaches the counts, and the view
    // holds every entry committed before, so the build applies those after the view's own index.
    CompletableFuture.runAsync(() -> build(topic, created), executor).exceptionally(failure -> {
      topics.remove(topic, created);
      created.ready().completeExceptionally(failure);
      return null;
    });
    return created.ready();
  }

  /** Called on the apply thread once entry {@code index} is committed, with its changes. */
  void committed(long index, Map<String, Map<Long, Long>> deltas) {
    deltas.forEach((topic, delta) -> {
      Counting counting = topics.get(topic);
      if (counting != null) {
        counting.counts().apply(index, delta);
      }
    });
  }

  /** The store's content was replaced: every count is read again on next use. */
  void forgetAll() {
    topics.clear();
  }

  private void build(String topic, Counting counting) {
    long hash = StorageKeys.topicHash(topic);
    Map<Long, Long> counted = new HashMap<>();
    long builtAt;
    try (OrderedStore.View view = store.view();
        OrderedStore.RangeIterator it = view.range(Space.MESSAGES, StorageKeys.messageRangeStart(hash, 0),
            StorageKeys.messageRangeEnd(hash))) {
      builtAt = BrokerStateMachine.appliedIndexIn(view);
      for (; it.valid(); it.next()) {
        counted.merge(Math.floorDiv(StorageKeys.dueBucketOf(it.key()) * bucketMs, 1000), 1L, Long::sum);
      }
    }
    counting.counts().built(builtAt, counted);
    counting.ready().complete(counting.counts());
  }
}
