package io.futureq.log;

import com.google.protobuf.InvalidProtocolBufferException;
import io.futureq.log.proto.StoredMessage;
import io.futureq.storage.OrderedStore.Space;
import io.futureq.storage.StorageKeys;
import java.util.Arrays;

/** Reads and removes stored messages, with their indexes, inside one entry being applied. */
final class StoredMessages {
  private final ApplyContext ctx;
  private final TopicBook book;

  StoredMessages(ApplyContext ctx, TopicBook book) {
    this.ctx = ctx;
    this.book = book;
  }

  ApplyContext ctx() {
    return ctx;
  }

  TopicBook book() {
    return book;
  }

  /** The message under {@code key}, as this entry left it, or null. */
  StoredMessage read(byte[] key) {
    byte[] bytes = ctx.get(Space.MESSAGES, key);
    if (bytes == null) {
      return null;
    }
    try {
      return StoredMessage.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("corrupt message record under key " + Arrays.toString(key), e);
    }
  }

  /** The message under {@code key} if it belongs to {@code topic} (hashes of two names may meet), or null. */
  StoredMessage readOf(String topic, byte[] key) {
    StoredMessage record = key == null ? null : read(key);
    return record == null || !record.getTopic().equals(topic) ? null : record;
  }

  void remove(byte[] key, StoredMessage record) {
    remove(key, record, true);
  }

  /** Deletes the message, its key and TTL index entries, its nack marks and ({@code mayHaveMarks}) its ack marks. */
  void remove(byte[] key, StoredMessage record, boolean mayHaveMarks) {
    ctx.delete(Space.MESSAGES, key);
    if (!record.getKey().isEmpty()) {
      byte[] index = StorageKeys.messageKeyIndex(record.getTopic(), record.getKey());
      if (Arrays.equals(ctx.get(Space.INDEX, index), key)) {
        ctx.delete(Space.INDEX, index);
      }
    }
    if (record.getExpireMs() > 0) {
      ctx.delete(Space.INDEX, StorageKeys.expiry(record.getTopic(), record.getExpireMs(), record.getEventId()));
    }
    NackDelayApply.removeMarks(ctx, key, record);
    if (mayHaveMarks && book.groups(record.getTopic()).size() > 1) {
      for (byte[] mark : ctx.keysWithPrefix(Space.INDEX, StorageKeys.ackMarkPrefix(key))) {
        ctx.delete(Space.INDEX, mark);
      }
    }
    book.addPending(record.getTopic(), -1);
  }
}
