package io.futureq.group;

import com.google.protobuf.InvalidProtocolBufferException;
import io.futureq.log.BrokerStateMachine;
import io.futureq.log.NackMark;
import io.futureq.log.proto.StoredMessage;
import io.futureq.storage.OrderedStore;
import io.futureq.storage.OrderedStore.Space;
import io.futureq.storage.StorageKeys;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads a topic's due messages in bounded chunks, in key order, from one consistent snapshot.
 * Blocking: call it on the storage dispatcher.
 */
final class DueReader {
  /**
   * @param messages due messages after the cursor, at most the limit
   * @param lastKey the new cursor (the last key looked at), or null if nothing was looked at
   * @param full true if the limit stopped the read: more due messages may follow
   * @param nextWakeMs when the next stored message after this chunk is due (Long.MAX_VALUE if none)
   * @param snapshotIndex the applied log index the snapshot reflects
   * @param delayed messages the group nacked with a delay before (a restart or a topic move came
   *     since): the group holds each until its mark's time, not in {@code messages}
   */
  record Chunk(List<DueMessage> messages, byte[] lastKey, boolean full, long nextWakeMs, long snapshotIndex,
      List<Delayed> delayed) {}

  /** A due message with the group's durable nack delay on it. */
  record Delayed(DueMessage message, NackMark mark) {}

  private final OrderedStore store;
  private final long bucketMs;

  DueReader(OrderedStore store, long bucketMs) {
    this.store = store;
    this.bucketMs = bucketMs;
  }

  /** The last millisecond of the bucket holding {@code dueMs}: a bucket is due once it has passed. */
  long wakeTimeOf(long dueBucket) {
    return (dueBucket + 1) * bucketMs - 1;
  }

  /**
   * Reads up to {@code limit} messages due by {@code nowMs} after {@code afterKey} (null: from the
   * start). Expired messages and, when {@code group} is not null, messages that group acked are
   * skipped.
   */
  Chunk read(String topic, byte[] afterKey, long nowMs, int limit, String group) {
    return read(topic, afterKey, nowMs, nowMs, limit, group);
  }

  /**
   * Like {@link #read(String, byte[], long, int, String)}, but takes messages due by {@code untilMs}
   * (a read ahead of the clock: the caller holds what is not due yet), skipping those expired by
   * {@code nowMs}.
   */
  Chunk read(String topic, byte[] afterKey, long untilMs, long nowMs, int limit, String group) {
    long hash = StorageKeys.topicHash(topic);
    long lastDueBucket = (untilMs + 1) / bucketMs - 1;
    byte[] from = afterKey == null ? StorageKeys.messageRangeStart(hash, 0) : successor(afterKey);
    byte[] dueEnd = StorageKeys.messageRangeStart(hash, lastDueBucket + 1);
    List<DueMessage> out = new ArrayList<>();
    List<Delayed> delayed = new ArrayList<>();
    byte[] lastKey = null;
    int scanned = 0;
    try (OrderedStore.View view = store.view()) {
      long index = BrokerStateMachine.appliedIndexIn(view);
      // Ack marks exist only while another group still holds a message.
      String markGroup = group != null && hasOtherGroups(view, topic) ? group : null;
      try (OrderedStore.RangeIterator it = view.range(Space.MESSAGES, from, dueEnd)) {
        for (; it.valid() && out.size() < limit && scanned < limit * 4; it.next(), scanned++) {
          lastKey = it.key();
          StoredMessage message = parse(it.value(), topic);
          if (message.getTopic().equals(topic) && !(message.getExpireMs() > 0 && message.getExpireMs() <= nowMs)
              && (markGroup == null || view.get(Space.INDEX, StorageKeys.ackMark(lastKey, markGroup)) == null)) {
            byte[] nack = group != null && message.getNackDelayed()
                ? view.get(Space.INDEX, StorageKeys.nackMark(lastKey, group)) : null;
            if (nack == null) {
              out.add(new DueMessage(lastKey, message));
            } else {
              delayed.add(new Delayed(new DueMessage(lastKey, message), NackMark.parse(nack)));
            }
          }
        }
        if (it.valid()) {
          return new Chunk(out, lastKey, true, nowMs, index, delayed);
        }
      }
      try (OrderedStore.RangeIterator next = view.range(Space.MESSAGES, dueEnd, StorageKeys.messageRangeEnd(hash))) {
        long wake = next.valid() ? wakeTimeOf(StorageKeys.dueBucketOf(next.key())) : Long.MAX_VALUE;
        return new Chunk(out, lastKey, false, wake, index, delayed);
      }
    }
  }

  private static boolean hasOtherGroups(OrderedStore.View view, String topic) {
    byte[] prefix = StorageKeys.groupPrefix(topic);
    int groups = 0;
    try (OrderedStore.RangeIterator it = view.range(Space.INDEX, prefix, StorageKeys.prefixEnd(prefix))) {
      for (; it.valid() && groups < 2; it.next()) {
        groups++;
      }
    }
    return groups > 1;
  }

  private static byte[] successor(byte[] key) {
    return Arrays.copyOf(key, key.length + 1);
  }

  private static StoredMessage parse(byte[] bytes, String topic) {
    try {
      return StoredMessage.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("corrupt message record on topic " + topic, e);
    }
  }
}
