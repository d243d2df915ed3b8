package io.futureq.log;

import java.nio.ByteBuffer;

/**
 * A group's durable nack delay on one message (the value under {@code StorageKeys.nackMark}): not
 * delivered to that group again before {@code notBeforeMs}, with {@code deliveries} so far.
 */
public record NackMark(long notBeforeMs, int deliveries) {
  private static final int BYTES = Long.BYTES + Integer.BYTES;

  public byte[] bytes() {
    return ByteBuffer.allocate(BYTES).putLong(notBeforeMs).putInt(deliveries).array();
  }

  public static NackMark parse(byte[] value) {
    if (value.length != BYTES) {
      throw new IllegalStateException("corrupt nack mark of " + value.length + " bytes");
    }
    ByteBuffer b = ByteBuffer.wrap(value);
    return new NackMark(b.getLong(), b.getInt());
  }
}
