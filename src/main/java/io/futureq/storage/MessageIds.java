package io.futureq.storage;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * Public message ids: 32 hex digits naming the due bucket and event id. With the topic they give
 * the message's storage key, so cancel-by-id needs no extra index. Clients treat them as opaque.
 */
public final class MessageIds {
  private static final HexFormat HEX = HexFormat.of();

  private MessageIds() {}

  private static final byte[] DIGITS = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  public static String of(byte[] storageKey) {
    return HEX.formatHex(storageKey, 8, StorageKeys.MESSAGE_KEY_LENGTH);
  }

  /**
   * The id of {@link #of} as its ASCII bytes, written straight from the key: a delivery's id goes on the wire
   * without building a String and encoding it again.
   */
  public static byte[] asciiOf(byte[] storageKey) {
    byte[] out = new byte[2 * (StorageKeys.MESSAGE_KEY_LENGTH - 8)];
    for (int i = 8, o = 0; i < StorageKeys.MESSAGE_KEY_LENGTH; i++) {
      out[o++] = DIGITS[(storageKey[i] >> 4) & 0xF];
      out[o++] = DIGITS[storageKey[i] & 0xF];
    }
    return out;
  }

  /**
   * The storage key of message {@code id} on {@code topic}.
   *
   * @throws IllegalArgumentException if {@code id} is not a message id
   */
  public static byte[] storageKey(String topic, String id) {
    if (id.length() != 32) {
      throw new IllegalArgumentException("must be 32 hex digits, got " + id.length() + " characters");
    }
    byte[] tail = HEX.parseHex(id);
    return ByteBuffer.allocate(StorageKeys.MESSAGE_KEY_LENGTH).putLong(StorageKeys.topicHash(topic)).put(tail).array();
  }
}
