package io.futureq.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class MessageIdsTest {

  @Test
  void idIsThirtyTwoHexDigitsOfBucketAndEventId() {
    byte[] key = StorageKeys.message(StorageKeys.topicHash("orders"), 0x1aL, 0xff00000000000001L);

    assertEquals("000000000000001aff00000000000001", MessageIds.of(key));
  }

  @Test
  void theIdsAsciiBytesAreTheIdItself() {
    Random random = new Random(7);
    for (int i = 0; i < 1_000; i++) {
      byte[] key = StorageKeys.message(random.nextLong(), random.nextLong(), random.nextLong());
      assertEquals(MessageIds.of(key), new String(MessageIds.asciiOf(key), StandardCharsets.US_ASCII));
    }
  }

  @Test
  void idWithItsTopicGivesBackTheStorageKey() {
    long hash = StorageKeys.topicHash("orders");
    for (long[] parts : new long[][] {{0, 1}, {-1L, -1L}, {Long.MIN_VALUE, 0x80}, {12345, 67890}}) {
      byte[] key = StorageKeys.message(hash, parts[0], parts[1]);
      assertArrayEquals(key, MessageIds.storageKey("orders", MessageIds.of(key)));
    }
  }

  @Test
  void idOnAnotherTopicNamesThatTopicsKey() {
    byte[] key = StorageKeys.message(StorageKeys.topicHash("orders"), 3, 4);

    byte[] other = MessageIds.storageKey("payments", MessageIds.of(key));

    assertEquals(StorageKeys.topicHash("payments"), StorageKeys.topicHashOf(other));
    assertEquals(3, StorageKeys.dueBucketOf(other));
    assertEquals(4, StorageKeys.eventIdOf(other));
  }

  @Test
  void upperCaseIdIsAccepted() {
    byte[] key = StorageKeys.message(StorageKeys.topicHash("orders"), 0xabL, 0xcdL);

    assertArrayEquals(key, MessageIds.storageKey("orders", MessageIds.of(key).toUpperCase()));
  }

  @Test
  void malformedIdsAreRejected() {
    List<String> malformed = List.of("", "abc", "000000000000001a00000000000000", // too short
        "000000000000001a0000000000000001ff", // too long
        "000000000000001a000000000000000g", // not hex
        "000000000000001a-000000000000001", "                                ");
    for (String id : malformed) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> MessageIds.storageKey("orders", id), id);
      assertTrue(e.getMessage() != null && !e.getMessage().isEmpty(), id);
    }
  }
}
