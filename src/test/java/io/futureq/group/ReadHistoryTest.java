package io.futureq.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.storage.StorageKeys;
import org.junit.jupiter.api.Test;

class ReadHistoryTest {
  private static final long HASH = StorageKeys.topicHash("orders");

  @Test
  void nothingIsSeenBeforeTheFirstRead() {
    ReadHistory history = new ReadHistory(null);

    assertFalse(history.seen(key(5), 1));
    assertEquals(0, history.size());
  }

  @Test
  void keysAtOrBelowTheInitialFloorWereNeverRead() {
    ReadHistory history = new ReadHistory(key(10));
    history.recordRead(key(20), 5);

    assertFalse(history.seen(key(3), 1));
    assertFalse(history.seen(key(10), 1));
    assertTrue(history.seen(key(11), 1));
    assertTrue(history.seen(key(20), 5));
  }

  @Test
  void readSawMessagesCommittedAtOrBeforeItsSnapshot() {
    ReadHistory history = new ReadHistory(null);
    history.recordRead(key(10), 5);

    assertTrue(history.seen(key(1), 4));
    assertTrue(history.seen(key(10), 5));
  }

  @Test
  void readMissedMessagesCommittedAfterItsSnapshot() {
    ReadHistory history = new ReadHistory(null);
    history.recordRead(key(10), 5);

    assertFalse(history.seen(key(7), 6));
  }

  @Test
  void eachRangeAnswersWithItsOwnSnapshot() {
    ReadHistory history = new ReadHistory(null);
    history.recordRead(key(10), 5);
    history.recordRead(key(20), 8);

    assertTrue(history.seen(key(10), 5));
    assertTrue(history.seen(key(15), 7));
    assertTrue(history.seen(key(20), 8));
    assertFalse(history.seen(key(21), 8));
  }

  @Test
  void aKeyOnARangeEndBelongsToThatRange() {
    ReadHistory history = new ReadHistory(null);
    history.recordRead(key(10), 5);
    history.recordRead(key(20), 8);

    assertFalse(history.seen(key(10), 6));
    assertTrue(history.seen(key(11), 6));
  }

  @Test
  void laterAnnouncementPrunesOlderRangesIntoTheFloor() {
    ReadHistory history = new ReadHistory(null);
    history.recordRead(key(10), 5);
    history.recordRead(key(20), 8);
    assertEquals(2, history.size());

    assertTrue(history.seen(key(15), 6));

    assertEquals(1, history.size());
    assertFalse(history.seen(key(10), 6));
    assertFalse(history.seen(key(1), 7));
    assertTrue(history.seen(key(11), 8));
  }

  @Test
  void announcementBeyondTheCursorAlsoPrunes() {
    ReadHistory history = new ReadHistory(null);
    history.recordRead(key(10), 5);
    history.recordRead(key(20), 8);

    history.announced(8);

    assertEquals(1, history.size());
    assertFalse(history.seen(key(5), 8));
    assertTrue(history.seen(key(15), 8));

    history.announced(9);

    assertEquals(0, history.size());
    assertFalse(history.seen(key(15), 9));
  }

  @Test
  void announcementAtTheSnapshotIndexKeepsTheRange() {
    ReadHistory history = new ReadHistory(null);
    history.recordRead(key(10), 5);

    history.announced(5);

    assertEquals(1, history.size());
    assertTrue(history.seen(key(4), 5));
  }

  @Test
  void consecutiveReadsFromOneSnapshotMergeIntoOneRange() {
    ReadHistory history = new ReadHistory(null);
    history.recordRead(key(10), 5);
    history.recordRead(key(20), 5);
    history.recordRead(key(30), 5);

    assertEquals(1, history.size());
    assertTrue(history.seen(key(5), 5));
    assertTrue(history.seen(key(25), 5));
  }

  @Test
  void readFromASnapshotOlderThanTheLastAnnouncementCountsAsUnseen() {
    ReadHistory history = new ReadHistory(null);
    history.announced(9);

    history.recordRead(key(10), 8);

    assertEquals(0, history.size());
    assertFalse(history.seen(key(5), 9));
  }

  @Test
  void keysOrderUnsignedAcrossHighBytes() {
    ReadHistory history = new ReadHistory(key(0x7f));
    history.recordRead(key(0x80), 5);
    history.recordRead(key(0x1ff), 9);

    assertFalse(history.seen(key(0x7f), 5));
    assertTrue(history.seen(key(0x80), 5));
    assertTrue(history.seen(key(0xff), 9));
    assertTrue(history.seen(key(0x100), 9));
  }

  private static byte[] key(long eventId) {
    return StorageKeys.message(HASH, 1, eventId);
  }
}
