package io.futureq.log;

import io.futureq.log.proto.CancelMessage;
import io.futureq.log.proto.StoredMessage;
import io.futureq.storage.OrderedStore.Space;
import io.futureq.storage.StorageKeys;

/**
 * How {@link BrokerStateMachine} applies a CancelMessage: the message named by its storage key, or else by its
 * producer key, is removed with its indexes and marks, whichever groups still hold it. A message that is gone, or
 * of another topic (hashes of two names may meet), is not cancelled and nothing is written.
 */
final class CancelApply {
  private CancelApply() {}

  /** @param index the log index of the entry, which the result carries */
  static CommandResult apply(StoredMessages messages, CancelMessage cancel, long index) {
    byte[] key = cancel.hasStorageKey() ? cancel.getStorageKey().toByteArray()
        : messages.ctx().get(Space.INDEX, StorageKeys.messageKeyIndex(cancel.getTopic(), cancel.getKey()));
    StoredMessage record = key == null ? null : messages.read(key);
    if (record == null || !record.getTopic().equals(cancel.getTopic())) {
      return new CommandResult.Cancelled(cancel.getTopic(), null, null, index);
    }
    messages.remove(key, record);
    return new CommandResult.Cancelled(cancel.getTopic(), key, record, index);
  }
}
