package io.futureq.log;

import io.futureq.log.proto.DeleteGroup;
import io.futureq.storage.OrderedStore.Space;
import io.futureq.storage.StorageKeys;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How {@link BrokerStateMachine} applies a DeleteGroup. Ack marks exist only for messages that some, but not all,
 * groups acked; so the messages the deleted group alone still held are those every other group marked, and the
 * work is bounded by the topic's marks, not its messages. With no other group left, messages stay (they go to the
 * next group, as on a topic that never had one).
 */
final class GroupDeleteApply {
  private GroupDeleteApply() {}

  static CommandResult apply(StoredMessages messages, DeleteGroup delete) {
    ApplyContext ctx = messages.ctx();
    String topic = delete.getTopic();
    String group = delete.getGroup();
    List<String> others = new ArrayList<>(messages.book().groups(topic));
    if (!others.remove(group)) {
      return new CommandResult.GroupDeleted(topic, group, false, List.of());
    }
    Map<ByteBuffer, List<byte[]>> marksByMessage = new LinkedHashMap<>();
    for (byte[] mark : ctx.keysWithPrefix(Space.INDEX, StorageKeys.ackMarkTopicPrefix(StorageKeys.topicHash(topic)))) {
      marksByMessage.computeIfAbsent(ByteBuffer.wrap(StorageKeys.messageKeyOfAckMark(mark)), k -> new ArrayList<>())
          .add(mark);
    }
    ctx.delete(Space.INDEX, StorageKeys.group(topic, group));
    messages.book().removeGroup(topic, group);
    // Its nack delays go too: a new group of the same name must not inherit them.
    for (byte[] mark : ctx.keysWithPrefix(Space.INDEX, StorageKeys.nackMarkTopicPrefix(StorageKeys.topicHash(topic)))) {
      if (StorageKeys.groupOfNackMark(mark).equals(group)) {
        ctx.delete(Space.INDEX, mark);
      }
    }
    List<byte[]> removed = new ArrayList<>();
    marksByMessage.forEach((wrapped, marks) -> {
      byte[] key = wrapped.array();
      StoredIndexes record = messages.indexesOf(topic, key);
      if (record == null) {
        return; // a mark of another topic with the same hash
      }
      int byOthers = 0;
      for (byte[] mark : marks) {
        String by = StorageKeys.groupOfAckMark(mark);
        if (by.equals(group)) {
          ctx.delete(Space.INDEX, mark);
        } else if (others.contains(by)) {
          byOthers++;
        }
      }
      if (!others.isEmpty() && byOthers == others.size()) {
        marks.forEach(mark -> ctx.delete(Space.INDEX, mark));
        messages.remove(key, record, false);
        removed.add(key);
      }
    });
    return new CommandResult.GroupDeleted(topic, group, true, removed);
  }
}
