package io.futureq.log;

import com.google.protobuf.ByteString;
import io.futureq.log.proto.CancelMessage;
import io.futureq.log.proto.CreateGroup;
import io.futureq.log.proto.DeadLetter;
import io.futureq.log.proto.DeleteBatch;
import io.futureq.log.proto.DeleteGroup;
import io.futureq.log.proto.ExpireMessages;
import io.futureq.log.proto.GroupAck;
import io.futureq.log.proto.LogCommand;
import io.futureq.log.proto.NewMessage;
import io.futureq.log.proto.PurgeTopic;
import io.futureq.log.proto.Reschedule;
import io.futureq.log.proto.StoreBatch;
import java.util.List;
import java.util.Map;

/** Builders of log commands for tests. */
public final class Commands {
  private Commands() {}

  public static NewMessage message(String topic, String payload, long dueMs) {
    return message(topic, payload, dueMs, "", 0, Map.of());
  }

  public static NewMessage message(String topic, String payload, long dueMs, String key, long expireMs,
      Map<String, String> headers) {
    NewMessage.Builder m = NewMessage.newBuilder().setTopic(topic).setPayload(ByteString.copyFromUtf8(payload))
        .setKey(key).setDueMs(dueMs).setExpireMs(expireMs);
    Headers.addAll(headers, m::addHeaders);
    return m.build();
  }

  public static LogCommand store(NewMessage... messages) {
    return storeAt(System.currentTimeMillis(), messages);
  }

  /** A StoreBatch the broker accepted at {@code enqueuedMs}. */
  public static LogCommand storeAt(long enqueuedMs, NewMessage... messages) {
    return LogCommand.newBuilder()
        .setStore(StoreBatch.newBuilder().setEnqueuedMs(enqueuedMs).addAllMessages(List.of(messages))).build();
  }

  public static LogCommand ack(String topic, String group, byte[] storageKey) {
    return LogCommand.newBuilder().setDelete(DeleteBatch.newBuilder().addAcks(GroupAck.newBuilder().setTopic(topic)
        .setGroup(group).setStorageKey(ByteString.copyFrom(storageKey)))).build();
  }

  public static LogCommand cancelByKey(String topic, String key) {
    return LogCommand.newBuilder().setCancel(CancelMessage.newBuilder().setTopic(topic).setKey(key)).build();
  }

  public static LogCommand cancelByStorageKey(String topic, byte[] storageKey) {
    return LogCommand.newBuilder()
        .setCancel(CancelMessage.newBuilder().setTopic(topic).setStorageKey(ByteString.copyFrom(storageKey))).build();
  }

  public static LogCommand createGroup(String topic, String group) {
    return LogCommand.newBuilder().setCreateGroup(CreateGroup.newBuilder().setTopic(topic).setGroup(group)).build();
  }

  public static LogCommand expire(String topic, byte[]... storageKeys) {
    ExpireMessages.Builder expire = ExpireMessages.newBuilder().setTopic(topic);
    for (byte[] key : storageKeys) {
      expire.addStorageKeys(ByteString.copyFrom(key));
    }
    return LogCommand.newBuilder().setExpire(expire).build();
  }

  public static LogCommand deadLetter(String topic, String group, byte[] storageKey, String reason, long nowMs) {
    return LogCommand.newBuilder().setDeadLetter(DeadLetter.newBuilder().setTopic(topic).setGroup(group)
        .setStorageKey(ByteString.copyFrom(storageKey)).setReason(reason).setNowMs(nowMs)).build();
  }

  public static LogCommand deleteGroup(String topic, String group) {
    return LogCommand.newBuilder().setDeleteGroup(DeleteGroup.newBuilder().setTopic(topic).setGroup(group)).build();
  }

  public static LogCommand purge(String topic, int maxMessages, long beforeEventId) {
    return LogCommand.newBuilder().setPurgeTopic(PurgeTopic.newBuilder().setTopic(topic).setMaxMessages(maxMessages)
        .setBeforeEventId(beforeEventId)).build();
  }

  public static LogCommand deleteTopic(String topic, int maxMessages) {
    return LogCommand.newBuilder().setPurgeTopic(PurgeTopic.newBuilder().setTopic(topic).setMaxMessages(maxMessages)
        .setDeleteTopic(true)).build();
  }

  public static LogCommand rescheduleByKey(String topic, String key, long dueMs, long nowMs) {
    return LogCommand.newBuilder().setReschedule(Reschedule.newBuilder().setTopic(topic).setKey(key).setDueMs(dueMs)
        .setNowMs(nowMs)).build();
  }

  public static LogCommand rescheduleByStorageKey(String topic, byte[] storageKey, long dueMs, long nowMs) {
    return LogCommand.newBuilder().setReschedule(Reschedule.newBuilder().setTopic(topic)
        .setStorageKey(ByteString.copyFrom(storageKey)).setDueMs(dueMs).setNowMs(nowMs)).build();
  }
}
