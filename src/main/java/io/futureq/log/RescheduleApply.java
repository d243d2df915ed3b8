package io.futureq.log;

import io.futureq.log.proto.Reschedule;
import io.futureq.log.proto.StoredMessage;
import io.futureq.storage.OrderedStore.Space;
import io.futureq.storage.StorageKeys;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * How {@link BrokerStateMachine} applies a Reschedule. The message keeps its event id but its key names the due
 * bucket, so it moves to a new key, and everything that points at the old one moves with it in the same entry:
 * the key index, the TTL index (the TTL counts from the new due time) and the ack marks of the groups.
 */
final class RescheduleApply {
  private RescheduleApply() {}

  static CommandResult apply(StoredMessages messages, long bucketMs, Reschedule move) {
    ApplyContext ctx = messages.ctx();
    String topic = move.getTopic();
    byte[] from = move.hasStorageKey() ? move.getStorageKey().toByteArray()
        : ctx.get(Space.INDEX, StorageKeys.messageKeyIndex(topic, move.getKey()));
    StoredMessage record = messages.readOf(topic, from);
    if (record == null || (record.getExpireMs() > 0 && record.getExpireMs() <= move.getNowMs())) {
      return new CommandResult.Rescheduled(topic, null, null, List.of());
    }
    long due = move.getDueMs();
    long expire = record.getExpireMs() == 0 ? 0 : due + (record.getExpireMs() - record.getDueMs());
    byte[] to = StorageKeys.message(StorageKeys.topicHashOf(from), due / bucketMs, record.getEventId());
    StoredMessage moved = record.toBuilder().setDueMs(due).setExpireMs(expire).build();
    List<byte[]> marks = ctx.keysWithPrefix(Space.INDEX, StorageKeys.ackMarkPrefix(from));
    ctx.delete(Space.MESSAGES, from);
    ctx.put(Space.MESSAGES, to, moved.toByteArray());
    messages.book().countDue(topic, from, -1);
    messages.book().countDue(topic, to, 1);
    byte[] keyIndex = StorageKeys.messageKeyIndex(topic, record.getKey());
    if (!record.getKey().isEmpty() && Arrays.equals(ctx.get(Space.INDEX, keyIndex), from)) {
      ctx.put(Space.INDEX, keyIndex, to);
    }
    if (record.getExpireMs() > 0) {
      ctx.delete(Space.INDEX, StorageKeys.expiry(topic, record.getExpireMs(), record.getEventId()));
      ctx.put(Space.INDEX, StorageKeys.expiry(topic, expire, record.getEventId()), to);
    }
    List<String> ackedBy = new ArrayList<>(marks.size());
    for (byte[] mark : marks) {
      String group = StorageKeys.groupOfAckMark(mark);
      ackedBy.add(group);
      ctx.delete(Space.INDEX, mark);
      ctx.put(Space.INDEX, StorageKeys.ackMark(to, group), new byte[0]);
    }
    return new CommandResult.Rescheduled(topic, from, new CommandResult.StoredRef(to, moved, false), ackedBy);
  }
}
