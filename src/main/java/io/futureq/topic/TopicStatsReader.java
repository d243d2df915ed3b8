package io.futureq.topic;

import com.google.protobuf.InvalidProtocolBufferException;
import io.futureq.log.proto.StoredMessage;
import io.futureq.log.proto.TopicMeta;
import io.futureq.storage.OrderedStore;
import io.futureq.storage.OrderedStore.Space;
import io.futureq.storage.StorageKeys;

/** Reads a topic's storage-side numbers. Blocking: call it on the storage dispatcher. */
final class TopicStatsReader {
  /** Counting due messages stops here, so stats stay cheap on a huge backlog. */
  static final long DUE_COUNT_CAP = 1_000_000;

  record StorageStats(long pending, long dueNow, long nextDueMs, long oldestDueAgeMs) {}

  private TopicStatsReader() {}

  static StorageStats read(OrderedStore store, String topic, long bucketMs, long nowMs) {
    long hash = StorageKeys.topicHash(topic);
    try (OrderedStore.View view = store.view()) {
      byte[] meta = view.get(Space.INDEX, StorageKeys.topicMeta(topic));
      long pending = meta == null ? 0 : TopicMeta.parseFrom(meta).getPending();
      long nextDue = 0;
      long oldestAge = 0;
      long due = 0;
      byte[] dueEnd = StorageKeys.messageRangeStart(hash, (nowMs + 1) / bucketMs);
      try (OrderedStore.RangeIterator it = view.range(Space.MESSAGES, StorageKeys.messageRangeStart(hash, 0),
          StorageKeys.messageRangeEnd(hash))) {
        if (it.valid()) {
          nextDue = StoredMessage.parseFrom(it.value()).getDueMs();
          oldestAge = Math.max(0, nowMs - nextDue);
        }
      }
      try (OrderedStore.RangeIterator it = view.range(Space.MESSAGES, StorageKeys.messageRangeStart(hash, 0),
          dueEnd)) {
        for (; it.valid() && due < DUE_COUNT_CAP; it.next()) {
          due++;
        }
      }
      return new StorageStats(pending, due, nextDue, due == 0 ? 0 : oldestAge);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("corrupt record on topic " + topic, e);
    }
  }
}
