package io.futureq.group;

import io.futureq.log.proto.StoredMessage;
import io.futureq.storage.MessageIds;
import java.util.Arrays;

/** A stored message and its storage key, which orders messages by due time then publish order. */
public record DueMessage(byte[] storageKey, StoredMessage message) {

  public String id() {
    return MessageIds.of(storageKey);
  }

  /** What the message weighs against a consumer's {@code max_in_flight_bytes}: its payload. */
  int payloadBytes() {
    return message.getPayload().size();
  }

  public boolean expiredAt(long nowMs) {
    return message.getExpireMs() > 0 && message.getExpireMs() <= nowMs;
  }

  int compareKey(byte[] other) {
    return Arrays.compareUnsigned(storageKey, other);
  }

  boolean sameKey(byte[] other) {
    return Arrays.equals(storageKey, other);
  }
}
