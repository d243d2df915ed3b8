package io.futureq.group;

import com.google.protobuf.InvalidProtocolBufferException;
import io.futureq.log.BrokerStateMachine;
import io.futureq.log.NackMark;
import io.futureq.log.proto.StoredMessage;
import io.futureq.storage.OrderedStore;
import io.futureq.storage.OrderedStore.Space;
import io.futureq.storage.StorageKeys;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Reads a topic's due messages in bounded chunks, in key order, from one consistent snapshot, for all
 * of its groups at once: a chunk carries the groups' ack and nack marks on its messages, and each group
 * takes its own share of it ({@link Chunk#forGroup}). Blocking: call it on the storage dispatcher.
 */
final class DueReader {
  /**
   * @param messages due messages after the cursor, at most the limit, marks not applied
   * @param ackedBy the groups that acked each message, for those some group acked (by storage key)
   * @param nacks the groups' durable nack delays, for messages some group nacked with a delay
   * @param lastKey the new cursor (the last key looked at), or null if nothing was looked at
   * @param full true if the limit stopped the read: more due messages may follow
   * @param nextWakeMs when the next stored message after this chunk is due (Long.MAX_VALUE if none)
   * @param snapshotIndex the applied log index the snapshot reflects
   */
  record Chunk(List<DueMessage> messages, Map<ByteBuffer, Set<String>> ackedBy,
      Map<ByteBuffer, Map<String, NackMark>> nacks, byte[] lastKey, boolean full, long nextWakeMs,
      long snapshotIndex) {

    /**
     * What {@code group} ("" for universal subscribers) takes of this chunk: messages after {@code after}
     * (null: all) that it has not acked; those it nacked with a delay come apart, to be held until the
     * mark's time (a restart or a topic move came since the nack).
     */
    Share forGroup(String group, byte[] after, Predicate<byte[]> dropped) {
      List<DueMessage> out = new ArrayList<>(messages.size());
      List<ConsumerGroup.NackDelayed> delayed = new ArrayList<>(0);
      for (DueMessage m : messages) {
        if ((after != null && m.compareKey(after) <= 0) || dropped.test(m.storageKey())) {
          continue;
        }
        ByteBuffer key = ackedBy.isEmpty() && nacks.isEmpty() ? null : ByteBuffer.wrap(m.storageKey());
        if (key != null && !group.isEmpty() && ackedBy.getOrDefault(key, Set.of()).contains(group)) {
          continue;
        }
        NackMark mark = key == null || group.isEmpty() ? null : nacks.getOrDefault(key, Map.of()).get(group);
        if (mark == null) {
          out.add(m);
        } else {
          delayed.add(new ConsumerGroup.NackDelayed(m, mark));
        }
      }
      return new Share(out, delayed);
    }
  }

  /** A group's share of a chunk. */
  record Share(List<DueMessage> messages, List<ConsumerGroup.NackDelayed> delayed) {
    boolean isEmpty() {
      return messages.isEmpty() && delayed.isEmpty();
    }
  }

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
   * Reads up to {@code limit} messages after {@code afterKey} (null: from the start) and at most
   * {@code upToKey} (null: no bound), due by {@code untilMs} (a read ahead of the clock: the caller
   * holds what is not due yet), skipping those expired by {@code nowMs}.
   */
  Chunk read(String topic, byte[] afterKey, byte[] upToKey, long untilMs, long nowMs, int limit) {
    long hash = StorageKeys.topicHash(topic);
    long lastDueBucket = (untilMs + 1) / bucketMs - 1;
    byte[] from = afterKey == null ? StorageKeys.messageRangeStart(hash, 0) : successor(afterKey);
    byte[] dueEnd = StorageKeys.messageRangeStart(hash, lastDueBucket + 1);
    byte[] end = upToKey != null && Arrays.compareUnsigned(successor(upToKey), dueEnd) < 0
        ? successor(upToKey) : dueEnd;
    List<DueMessage> out = new ArrayList<>();
    List<byte[]> nackDelayed = new ArrayList<>(0);
    byte[] lastKey = null;
    int scanned = 0;
    try (OrderedStore.View view = store.view()) {
      long index = BrokerStateMachine.appliedIndexIn(view);
      boolean full;
      try (OrderedStore.RangeIterator it = view.range(Space.MESSAGES, from, end)) {
        for (; it.valid() && out.size() < limit && scanned < limit * 4; it.next(), scanned++) {
          lastKey = it.key();
          StoredMessage message = parse(it.value(), topic);
          if (message.getTopic().equals(topic) && !(message.getExpireMs() > 0 && message.getExpireMs() <= nowMs)) {
            out.add(new DueMessage(lastKey, message));
            if (message.getNackDelayed()) {
              nackDelayed.add(lastKey);
            }
          }
        }
        full = it.valid();
      }
      // Ack marks exist only while another group still holds a message.
      Map<ByteBuffer, Set<String>> ackedBy = out.isEmpty() || !hasOtherGroups(view, topic) ? Map.of()
          : ackMarks(view, out.get(0).storageKey(), lastKey);
      Map<ByteBuffer, Map<String, NackMark>> nacks = nackMarks(view, nackDelayed);
      if (full) {
        return new Chunk(out, ackedBy, nacks, lastKey, true, nowMs, index);
      }
      if (upToKey != null && end != dueEnd) {
        return new Chunk(out, ackedBy, nacks, lastKey, false, nowMs, index);
      }
      try (OrderedStore.RangeIterator next = view.range(Space.MESSAGES, dueEnd, StorageKeys.messageRangeEnd(hash))) {
        long wake = next.valid() ? wakeTimeOf(StorageKeys.dueBucketOf(next.key())) : Long.MAX_VALUE;
        return new Chunk(out, ackedBy, nacks, lastKey, false, wake, index);
      }
    }
  }

  /** The ack marks of the messages from {@code first} to {@code last}, in one scan. */
  private static Map<ByteBuffer, Set<String>> ackMarks(OrderedStore.View view, byte[] first, byte[] last) {
    Map<ByteBuffer, Set<String>> marks = new HashMap<>();
    byte[] end = StorageKeys.prefixEnd(StorageKeys.ackMarkPrefix(last));
    try (OrderedStore.RangeIterator it = view.range(Space.INDEX, StorageKeys.ackMarkPrefix(first), end)) {
      for (; it.valid(); it.next()) {
        byte[] mark = it.key();
        marks.computeIfAbsent(ByteBuffer.wrap(StorageKeys.messageKeyOfAckMark(mark)), k -> new HashSet<>())
            .add(StorageKeys.groupOfAckMark(mark));
      }
    }
    return marks;
  }

  private static Map<ByteBuffer, Map<String, NackMark>> nackMarks(OrderedStore.View view, List<byte[]> keys) {
    if (keys.isEmpty()) {
      return Map.of();
    }
    Map<ByteBuffer, Map<String, NackMark>> marks = new HashMap<>();
    for (byte[] key : keys) {
      byte[] prefix = StorageKeys.nackMarkPrefix(key);
      try (OrderedStore.RangeIterator it = view.range(Space.INDEX, prefix, StorageKeys.prefixEnd(prefix))) {
        for (; it.valid(); it.next()) {
          marks.computeIfAbsent(ByteBuffer.wrap(key), k -> new HashMap<>())
              .put(StorageKeys.groupOfNackMark(it.key()), NackMark.parse(it.value()));
        }
      }
    }
    return marks;
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

  static byte[] successor(byte[] key) {
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
