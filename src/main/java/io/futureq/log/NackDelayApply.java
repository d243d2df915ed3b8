package io.futureq.log;

import com.google.protobuf.InvalidProtocolBufferException;
import io.futureq.log.proto.DelayedDelivery;
import io.futureq.log.proto.NackDelay;
import io.futureq.log.proto.StoredMessage;
import io.futureq.storage.OrderedStore.Space;
import io.futureq.storage.StorageKeys;

/**
 * How {@link BrokerStateMachine} applies a NackDelay: each message still stored, and not acked by
 * the group, gets the group's {@link NackMark}, and is flagged {@code nack_delayed} so that readers
 * look for marks only on messages that may have one. Removing a message removes its marks.
 */
final class NackDelayApply {
  private NackDelayApply() {}

  static CommandResult apply(ApplyContext ctx, NackDelay delay) {
    int marked = 0;
    for (DelayedDelivery d : delay.getDeliveriesList()) {
      byte[] key = d.getStorageKey().toByteArray();
      byte[] bytes = ctx.get(Space.MESSAGES, key);
      if (bytes == null || ctx.get(Space.INDEX, StorageKeys.ackMark(key, delay.getGroup())) != null) {
        continue; // acked or removed since: nothing to delay
      }
      StoredMessage record = parse(bytes);
      if (!record.getTopic().equals(delay.getTopic())) {
        continue;
      }
      ctx.put(Space.INDEX, StorageKeys.nackMark(key, delay.getGroup()),
          new NackMark(d.getNotBeforeMs(), d.getDeliveries()).bytes());
      if (!record.getNackDelayed()) {
        ctx.put(Space.MESSAGES, key, record.toBuilder().setNackDelayed(true).build().toByteArray());
      }
      marked++;
    }
    return new CommandResult.NackDelayed(delay.getTopic(), delay.getGroup(), marked);
  }

  /** Deletes every group's nack mark of a message being removed. */
  static void removeMarks(ApplyContext ctx, byte[] key, boolean nackDelayed) {
    if (nackDelayed) {
      for (byte[] mark : ctx.keysWithPrefix(Space.INDEX, StorageKeys.nackMarkPrefix(key))) {
        ctx.delete(Space.INDEX, mark);
      }
    }
  }

  private static StoredMessage parse(byte[] bytes) {
    try {
      return StoredMessage.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("corrupt message record", e);
    }
  }
}
