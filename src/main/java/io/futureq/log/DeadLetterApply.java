package io.futureq.log;

import io.futureq.log.CommandResult.StoredRef;
import io.futureq.log.proto.DeadLetter;
import io.futureq.log.proto.NewMessage;
import io.futureq.log.proto.StoredMessage;
import io.futureq.storage.OrderedStore.Space;
import io.futureq.storage.StorageKeys;
import java.util.Map;

/**
 * How {@link BrokerStateMachine} applies a DeadLetter: the message is copied to its topic's dead-letter topic
 * ({@link BrokerStateMachine#DEAD_LETTER_SUFFIX}), due at the command's time, and the copy counts as the group's
 * ack. It happens once per message and group: a group whose ack mark is there (a retried DeadLetter that did
 * commit) gets no second copy.
 */
final class DeadLetterApply {
  private DeadLetterApply() {}

  /** @param stores the entry's store, so the copy takes the entry's next slot */
  static CommandResult apply(StoreApply stores, StoredMessages messages, DeadLetter dl) {
    byte[] key = dl.getStorageKey().toByteArray();
    StoredMessage record = messages.read(key);
    if (record == null || !record.getTopic().equals(dl.getTopic())
        || messages.ctx().get(Space.INDEX, StorageKeys.ackMark(key, dl.getGroup())) != null) {
      return new CommandResult.DeadLettered(dl.getTopic(), dl.getGroup(), null);
    }
    // The dead letter's own headers replace any of the same name the message had (a dead letter dead-lettered).
    Map<String, String> headers = Headers.asMap(record.getHeadersList());
    headers.put("futureq-original-key", record.getKey());
    headers.put("futureq-dead-letter-reason", dl.getReason());
    headers.put("futureq-dead-letter-group", dl.getGroup());
    headers.put("futureq-original-due-at-unix-ms", Long.toString(record.getDueMs()));
    NewMessage.Builder copy = NewMessage.newBuilder().setTopic(dl.getTopic() + BrokerStateMachine.DEAD_LETTER_SUFFIX)
        .setPayload(record.getPayload()).setDueMs(dl.getNowMs());
    Headers.addAll(headers, copy::addHeaders);
    StoredRef ref = stores.storeOne(copy.build(), dl.getNowMs());
    AckApply.ackAndMaybeRemove(messages, dl.getTopic(), dl.getGroup(), key);
    return new CommandResult.DeadLettered(dl.getTopic(), dl.getGroup(), ref);
  }
}
