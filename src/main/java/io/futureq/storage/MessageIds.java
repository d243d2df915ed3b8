package io.futureq.storage;

import java.nio.ByteBuffer;
import java.util.HexFormat;

/**
 * Public message ids: 32 hex digits naming the due bucket and event id. With the topic they give
 * the message's storage key, so cancel-by-id needs no extra index. Clients treat them as opaque.
 */
public final class MessageIds {
  private static final HexFormat HEX = HexFormat.of();

  private MessageIds() {}

  public static String of(byte[] storageKey) {
    return HEX.formatHex(storageKey, 8, StorageKeys.MESSAGE_KEY_LENGTH);
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
