package io.futureq.log;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import io.futureq.log.proto.StoredMessage;
import java.io.IOException;
import java.util.Arrays;

/**
 * What removing a stored message needs to know of it: which index entries point at it (its key, its
 * expiry, its nack marks) and whose it is. An ack or an expiry reads only these fields of the stored
 * record ({@link #read}), skipping the payload and headers instead of parsing the whole message: most
 * messages are removed by an ack, so this is on the hot path of every delivery.
 */
record StoredIndexes(String topic, String key, long expireMs, long eventId, boolean nackDelayed) {

  static StoredIndexes of(StoredMessage record) {
    return new StoredIndexes(record.getTopic(), record.getKey(), record.getExpireMs(), record.getEventId(),
        record.getNackDelayed());
  }

  /** The fields of the serialized {@link StoredMessage} in {@code bytes}; unknown fields are skipped. */
  static StoredIndexes read(byte[] bytes, byte[] storageKey) {
    CodedInputStream in = CodedInputStream.newInstance(bytes);
    String topic = "";
    String key = "";
    long expireMs = 0;
    long eventId = 0;
    boolean nackDelayed = false;
    try {
      for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
        switch (WireFormat.getTagFieldNumber(tag)) {
          case StoredMessage.TOPIC_FIELD_NUMBER -> topic = in.readStringRequireUtf8();
          case StoredMessage.KEY_FIELD_NUMBER -> key = in.readStringRequireUtf8();
          case StoredMessage.EXPIRE_MS_FIELD_NUMBER -> expireMs = in.readInt64();
          case StoredMessage.EVENT_ID_FIELD_NUMBER -> eventId = in.readInt64();
          case StoredMessage.NACK_DELAYED_FIELD_NUMBER -> nackDelayed = in.readBool();
          default -> in.skipField(tag); // the payload and headers: not copied
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("corrupt message record under key " + Arrays.toString(storageKey), e);
    }
    return new StoredIndexes(topic, key, expireMs, eventId, nackDelayed);
  }
}
