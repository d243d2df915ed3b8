package io.futureq.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class StorageKeysTest {

  @Test
  void messageKeyIsTwentyFourBigEndianBytesOfHashBucketAndEventId() {
    byte[] key = StorageKeys.message(0x0102030405060708L, 0x1112131415161718L, 0x2122232425262728L);

    assertEquals(StorageKeys.MESSAGE_KEY_LENGTH, key.length);
    assertEquals(24, key.length);
    assertEquals(0x01, key[0]);
    assertEquals(0x08, key[7]);
    assertEquals(0x11, key[8]);
    assertEquals(0x18, key[15]);
    assertEquals(0x21, key[16]);
    assertEquals(0x28, key[23]);
  }

  @Test
  void messageKeyPartsRoundTrip() {
    long[] values = {0L, 1L, -1L, Long.MIN_VALUE, Long.MAX_VALUE, 0x80L, 0xff00ff00ff00ff00L};
    for (long hash : values) {
      for (long bucket : values) {
        for (long eventId : values) {
          byte[] key = StorageKeys.message(hash, bucket, eventId);
          assertEquals(hash, StorageKeys.topicHashOf(key));
          assertEquals(bucket, StorageKeys.dueBucketOf(key));
          assertEquals(eventId, StorageKeys.eventIdOf(key));
        }
      }
    }
  }

  @Test
  void messageKeysOfOneTopicSortUnsignedByBucketThenEventId() {
    long hash = StorageKeys.topicHash("orders");
    List<byte[]> expectedOrder = List.of(
        StorageKeys.message(hash, 1, 1),
        StorageKeys.message(hash, 1, 0x7f),
        StorageKeys.message(hash, 1, 0x80),
        StorageKeys.message(hash, 1, 0xff),
        StorageKeys.message(hash, 1, 0x100),
        StorageKeys.message(hash, 1, 0x80_0000_0000L),
        StorageKeys.message(hash, 0x7f, 1),
        StorageKeys.message(hash, 0x80, 0),
        StorageKeys.message(hash, 0xff, 0),
        StorageKeys.message(hash, 0x100, 0),
        StorageKeys.message(hash, 0x80_0000L, 0));
    List<byte[]> sorted = new ArrayList<>(expectedOrder);
    Collections.reverse(sorted);
    sorted.sort(Arrays::compareUnsigned);

    for (int i = 0; i < expectedOrder.size(); i++) {
      assertArrayEquals(expectedOrder.get(i), sorted.get(i), "position " + i);
    }
  }

  @Test
  void messageRangeOfATopicHoldsEveryBucketAndNoOtherTopic() {
    long hash = StorageKeys.topicHash("orders");
    byte[] start = StorageKeys.messageRangeStart(hash, 0);
    byte[] end = StorageKeys.messageRangeEnd(hash);
    byte[] latest = StorageKeys.message(hash, -1L, -1L);
    byte[] next = StorageKeys.message(hash + 1, 0, 0);

    assertTrue(Arrays.compareUnsigned(start, StorageKeys.message(hash, 0, 1)) < 0);
    assertTrue(Arrays.compareUnsigned(latest, end) < 0);
    assertTrue(Arrays.compareUnsigned(next, end) >= 0);
    assertNull(StorageKeys.messageRangeEnd(-1L));
  }

  @Test
  void topicHashIsStableAndTellsTopicsApart() {
    assertEquals(StorageKeys.topicHash("orders"), StorageKeys.topicHash("orders"));
    assertTrue(StorageKeys.topicHash("orders") != StorageKeys.topicHash("orders.dead-letter"));
    assertEquals(0xcbf29ce484222325L, StorageKeys.topicHash(""));
  }

  @Test
  void prefixEndIsTheSmallestKeyAfterEveryKeyWithThePrefix() {
    assertArrayEquals(new byte[] {1, 3}, StorageKeys.prefixEnd(new byte[] {1, 2}));
    assertArrayEquals(new byte[] {1, (byte) 0x80}, StorageKeys.prefixEnd(new byte[] {1, 0x7f}));
    assertArrayEquals(new byte[] {2}, StorageKeys.prefixEnd(new byte[] {1, (byte) 0xff}));
    assertArrayEquals(new byte[] {1, 3}, StorageKeys.prefixEnd(new byte[] {1, 2, (byte) 0xff, (byte) 0xff}));
    assertNull(StorageKeys.prefixEnd(new byte[] {(byte) 0xff, (byte) 0xff}));
    assertNull(StorageKeys.prefixEnd(new byte[0]));
  }

  @Test
  void prefixEndSortsAfterLongerKeysWithThePrefixAndBeforeTheNextPrefix() {
    byte[] prefix = StorageKeys.groupPrefix("orders");
    byte[] end = StorageKeys.prefixEnd(prefix);
    byte[] longest = StorageKeys.group("orders", "\uffff\uffff");

    assertTrue(Arrays.compareUnsigned(longest, end) < 0);
    assertTrue(Arrays.compareUnsigned(prefix, end) < 0);
    assertTrue(Arrays.compareUnsigned(StorageKeys.groupPrefix("orders0"), end) >= 0);
  }

  @Test
  void groupKeyGivesBackTheGroupName() {
    for (String name : List.of("billing", "", "\u00fcn\u00efc\u00f8d\u00e9-\u30b0\u30eb\u30fc\u30d7", "a.b_c-d")) {
      byte[] key = StorageKeys.group("orders", name);
      assertEquals(name, StorageKeys.groupNameOf("orders", key));
      assertTrue(startsWith(key, StorageKeys.groupPrefix("orders")));
    }
  }

  @Test
  void groupKeysOfOneTopicDoNotShareAPrefixWithAnotherTopic() {
    byte[] key = StorageKeys.group("orders2", "billing");
    assertTrue(!startsWith(key, StorageKeys.groupPrefix("orders")));
  }

  @Test
  void expiryKeyGivesBackTheExpiryTimeAndSortsByIt() {
    byte[] early = StorageKeys.expiry("orders", 1_700_000_000_000L, 9);
    byte[] late = StorageKeys.expiry("orders", 1_700_000_000_001L, 1);

    assertEquals(1_700_000_000_000L, StorageKeys.expireMsOf("orders", early));
    assertEquals(1_700_000_000_001L, StorageKeys.expireMsOf("orders", late));
    assertTrue(Arrays.compareUnsigned(early, late) < 0);
    assertTrue(startsWith(early, StorageKeys.expiryPrefix("orders")));
  }

  @Test
  void ackMarksOfAMessageShareItsPrefix() {
    byte[] message = StorageKeys.message(StorageKeys.topicHash("orders"), 5, 7);
    byte[] other = StorageKeys.message(StorageKeys.topicHash("orders"), 5, 8);

    assertTrue(startsWith(StorageKeys.ackMark(message, "billing"), StorageKeys.ackMarkPrefix(message)));
    assertTrue(!startsWith(StorageKeys.ackMark(other, "billing"), StorageKeys.ackMarkPrefix(message)));
  }

  private static boolean startsWith(byte[] key, byte[] prefix) {
    return key.length >= prefix.length && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
  }
}
