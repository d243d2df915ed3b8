package io.futureq.topic;

import com.google.protobuf.InvalidProtocolBufferException;
import io.futureq.log.proto.StoredMessage;
import io.futureq.log.proto.TopicMeta;
import io.futureq.storage.OrderedStore;
import io.futureq.storage.OrderedStore.Space;
import io.futureq.storage.StorageKeys;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads each durable group's backlog from one view. A group's lag is the pending count less its ack marks (marks
 * exist only while another group still holds a message). Blocking: call it on the storage dispatcher.
 */
final class GroupBacklogReader {
  /** Looking for a group's oldest unacked due message stops after this many due messages. */
  static final int OLDEST_SCAN_CAP = 100_000;

  private GroupBacklogReader() {}

  static List<GroupBacklog> read(OrderedStore store, String topic, List<String> groups, long bucketMs, long nowMs) {
    long hash = StorageKeys.topicHash(topic);
    try (OrderedStore.View view = store.view()) {
      byte[] meta = view.get(Space.INDEX, StorageKeys.topicMeta(topic));
      long pending = meta == null ? 0 : TopicMeta.parseFrom(meta).getPending();
      Map<String, Long> acked = new HashMap<>();
      byte[] markPrefix = StorageKeys.ackMarkTopicPrefix(hash);
      try (OrderedStore.RangeIterator it = view.range(Space.INDEX, markPrefix, StorageKeys.prefixEnd(markPrefix))) {
        for (; it.valid(); it.next()) {
          acked.merge(StorageKeys.groupOfAckMark(it.key()), 1L, Long::sum);
        }
      }
      Map<String, Long> oldest = oldestUnackedDue(view, topic, groups, bucketMs, nowMs);
      List<GroupBacklog> out = new ArrayList<>(groups.size());
      for (String g : groups) {
        out.add(new GroupBacklog(g, Math.max(0, pending - acked.getOrDefault(g, 0L)), oldest.getOrDefault(g, 0L)));
      }
      return out;
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("corrupt record on topic " + topic, e);
    }
  }

  private static Map<String, Long> oldestUnackedDue(OrderedStore.View view, String topic, List<String> groups,
      long bucketMs, long nowMs) throws InvalidProtocolBufferException {
    long hash = StorageKeys.topicHash(topic);
    Map<String, Long> ages = new HashMap<>();
    try (OrderedStore.RangeIterator it = view.range(Space.MESSAGES, StorageKeys.messageRangeStart(hash, 0),
        StorageKeys.messageRangeStart(hash, nowMs / bucketMs + 1))) {
      for (int scanned = 0; it.valid() && scanned < OLDEST_SCAN_CAP && ages.size() < groups.size(); it.next()) {
        StoredMessage m = StoredMessage.parseFrom(it.value());
        if (!m.getTopic().equals(topic) || m.getDueMs() > nowMs) {
          continue;
        }
        scanned++;
        for (String g : groups) {
          if (!ages.containsKey(g) && view.get(Space.INDEX, StorageKeys.ackMark(it.key(), g)) == null) {
            ages.put(g, nowMs - m.getDueMs());
          }
        }
      }
    }
    return ages;
  }
}
