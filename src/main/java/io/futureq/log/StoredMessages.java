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

  /**
   * The index fields of the message under {@code key} if it belongs to {@code topic} (hashes of two names may
   * meet), as this entry left it, or null; cheaper than {@link #readOf}, which parses the whole message.
   */
  StoredIndexes indexesOf(String topic, byte[] key) {
    byte[] bytes = ctx.get(Space.MESSAGES, key);
    if (bytes == null) {
      return null;
    }
    StoredIndexes record = StoredIndexes.read(bytes, key);
    return record.topic().equals(topic) ? record : null;
  }

  void remove(byte[] key, StoredMessage record) {
    remove(key, StoredIndexes.of(record), true);
  }

  void remove(byte[] key, StoredMessage record, boolean mayHaveMarks) {
    remove(key, StoredIndexes.of(record), mayHaveMarks);
  }

  /** Deletes the message, its key and TTL index entries, its nack marks and ({@code mayHaveMarks}) its ack marks. */
  void remove(byte[] key, StoredIndexes record, boolean mayHaveMarks) {
    ctx.delete(Space.MESSAGES, key);
    if (!record.key().isEmpty()) {
      byte[] index = StorageKeys.messageKeyIndex(record.topic(), record.key());
      if (Arrays.equals(ctx.get(Space.INDEX, index), key)) {
        ctx.delete(Space.INDEX, index);
      }
    }
    if (record.expireMs() > 0) {
      ctx.delete(Space.INDEX, StorageKeys.expiry(record.topic(), record.expireMs(), record.eventId()));
    }
    NackDelayApply.removeMarks(ctx, key, record.nackDelayed());
    if (mayHaveMarks && book.groups(record.topic()).size() > 1) {
      for (byte[] mark : ctx.keysWithPrefix(Space.INDEX, StorageKeys.ackMarkPrefix(key))) {
        ctx.delete(Space.INDEX, mark);
      }
    }
    book.addPending(record.topic(), -1);
    book.countDue(record.topic(), key, -1);
  }
}
