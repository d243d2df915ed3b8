package io.futureq.log;

import io.futureq.log.CommandResult.Reason;
import io.futureq.log.proto.DeleteBatch;
import io.futureq.log.proto.GroupAck;
import io.futureq.storage.OrderedStore.Space;
import io.futureq.storage.StorageKeys;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * How {@link BrokerStateMachine} applies a DeleteBatch, the groups' acks. A message is removed once every group of
 * its topic acked it; until then each ack leaves that group's ack mark beside it. An ack without a group (from a
 * universal subscriber) removes the message only on a topic that has no group.
 */
final class AckApply {
  private AckApply() {}

  static CommandResult apply(StoredMessages messages, DeleteBatch batch) {
    List<byte[]> removed = new ArrayList<>();
    String topic = batch.getAcksCount() == 0 ? "" : batch.getAcks(0).getTopic();
    for (GroupAck ack : batch.getAcksList()) {
      byte[] key = ack.getStorageKey().toByteArray();
      if (ackAndMaybeRemove(messages, ack.getTopic(), ack.getGroup(), key)) {
        removed.add(key);
      }
    }
    return new CommandResult.Removed(topic, removed, Reason.ACKED);
  }

  /**
   * Records that {@code group} is done with the message; removes it once every group is.
   *
   * @return whether the message was removed
   */
  static boolean ackAndMaybeRemove(StoredMessages messages, String topic, String group, byte[] key) {
    StoredIndexes record = messages.indexesOf(topic, key);
    if (record == null) {
      return false;
    }
    List<String> groups = messages.book().groups(topic);
    if (group.isEmpty()) {
      if (groups.isEmpty()) {
        messages.remove(key, record, true);
        return true;
      }
      return false;
    }
    if (!groups.contains(group)) {
      return false;
    }
    if (groups.size() == 1) {
      // Marks are only written while another group still holds the message: none can exist.
      messages.remove(key, record, false);
      return true;
    }
    ApplyContext ctx = messages.ctx();
    List<byte[]> marks = ctx.keysWithPrefix(Space.INDEX, StorageKeys.ackMarkPrefix(key));
    int others = 0;
    for (byte[] mark : marks) {
      if (!Arrays.equals(mark, StorageKeys.ackMark(key, group))) {
        others++;
      }
    }
    if (others + 1 >= groups.size()) {
      messages.remove(key, record, true);
      return true;
    }
    ctx.put(Space.INDEX, StorageKeys.ackMark(key, group), new byte[0]);
    return false;
  }
}
