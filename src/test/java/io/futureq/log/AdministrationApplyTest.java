package io.futureq.log;

import static io.futureq.log.Commands.ack;
import static io.futureq.log.Commands.createGroup;
import static io.futureq.log.Commands.deleteGroup;
import static io.futureq.log.Commands.deleteTopic;
import static io.futureq.log.Commands.message;
import static io.futureq.log.Commands.purge;
import static io.futureq.log.Commands.rescheduleByKey;
import static io.futureq.log.Commands.rescheduleByStorageKey;
import static io.futureq.log.Commands.store;
import static io.futureq.log.Commands.storeAt;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.log.CommandResult.StoredRef;
import io.futureq.log.proto.LogCommand;
import io.futureq.log.proto.StoredMessage;
import io.futureq.storage.OrderedStore.Space;
import io.futureq.storage.StorageKeys;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How the state machine applies Reschedule, DeleteGroup and PurgeTopic, on RocksDB, across reopens. */
class AdministrationApplyTest {
  private static final long BUCKET_MS = 1000;
  private static final String TOPIC = "orders";

  @TempDir
  Path dir;

  private TestLog testLog;

  @BeforeEach
  void open() {
    testLog = TestLog.open(dir, BUCKET_MS);
  }

  @AfterEach
  void close() {
    testLog.close();
  }

  @Test
  void rescheduleMovesTheMessageWithItsKeyIndexTtlIndexAndAckMarksDurably() {
    apply(createGroup(TOPIC, "billing"));
    apply(createGroup(TOPIC, "shipping"));
    StoredRef original = stored(apply(store(message(TOPIC, "body", 1_500, "order-7", 11_500, Map.of("h", "v")))));
    apply(ack(TOPIC, "billing", original.storageKey()));

    CommandResult.Rescheduled moved = (CommandResult.Rescheduled) apply(rescheduleByKey(TOPIC, "order-7", 60_000,
        1_000));
    testLog.reopen();

    byte[] to = moved.moved().storageKey();
    long eventId = original.message().getEventId();
    assertArrayEquals(original.storageKey(), moved.from());
    assertArrayEquals(StorageKeys.message(StorageKeys.topicHash(TOPIC), 60, eventId), to);
    assertEquals(List.of("billing"), moved.ackedBy());
    assertNull(testLog.read(original.storageKey()));
    StoredMessage record = testLog.read(to);
    assertEquals(60_000, record.getDueMs());
    assertEquals(70_000, record.getExpireMs(), "the TTL counts from the new due time");
    assertEquals("body", record.getPayload().toStringUtf8());
    assertEquals("v", Headers.asMap(record.getHeadersList()).get("h"));
    assertArrayEquals(to, testLog.store().get(Space.INDEX, StorageKeys.messageKeyIndex(TOPIC, "order-7")));
    assertArrayEquals(to, testLog.store().get(Space.INDEX, StorageKeys.expiry(TOPIC, 70_000, eventId)));
    assertEquals(1, testLog.countIndexKeys(StorageKeys.expiryPrefix(TOPIC)));
    assertEquals(0, testLog.countIndexKeys(StorageKeys.ackMarkPrefix(original.storageKey())));
    assertEquals(1, testLog.countIndexKeys(StorageKeys.ackMarkPrefix(to)));
    assertEquals(1, testLog.stateMachine().pending(TOPIC));

    StoredRef again = stored(apply(storeAt(30_000, message(TOPIC, "other", 30_000, "order-7", 0, Map.of()))));
    assertTrue(again.duplicate(), "publishing a pending key stays a no-op");
    assertArrayEquals(to, again.storageKey());
    // billing's mark moved with the message: shipping's ack is the last one, and removes it.
    CommandResult.Removed removed = (CommandResult.Removed) apply(ack(TOPIC, "shipping", to));
    assertEquals(1, removed.storageKeys().size());
    assertEquals(0, testLog.stateMachine().pending(TOPIC));
    assertEquals(0, testLog.countIndexKeys(StorageKeys.expiryPrefix(TOPIC)));
  }

  @Test
  void reschedulingAMissingOrExpiredMessageMovesNothing() {
    StoredRef ref = stored(apply(store(message(TOPIC, "body", 1_000, "", 5_000, Map.of()))));

    CommandResult.Rescheduled expired = (CommandResult.Rescheduled) apply(rescheduleByStorageKey(TOPIC,
        ref.storageKey(), 90_000, 5_000));
    CommandResult.Rescheduled missing = (CommandResult.Rescheduled) apply(rescheduleByKey(TOPIC, "nope", 90_000,
        1_000));
    CommandResult.Rescheduled otherTopic = (CommandResult.Rescheduled) apply(rescheduleByStorageKey("payments",
        ref.storageKey(), 90_000, 1_000));

    assertFalse(expired.existed());
    assertFalse(missing.existed());
    assertFalse(otherTopic.existed());
    assertEquals(1_000, testLog.read(ref.storageKey()).getDueMs());
  }

  @Test
  void deletingAGroupRemovesWhatOnlyItStillHeldAndDropsItsMarks() {
    apply(createGroup(TOPIC, "billing"));
    apply(createGroup(TOPIC, "billng"));
    List<StoredRef> refs = ((CommandResult.Stored) apply(store(message(TOPIC, "o1", 100), message(TOPIC, "o2", 200),
        message(TOPIC, "o3", 300), message(TOPIC, "o4", 400)))).messages();
    apply(ack(TOPIC, "billing", refs.get(0).storageKey()));
    apply(ack(TOPIC, "billing", refs.get(1).storageKey()));
    apply(ack(TOPIC, "billng", refs.get(2).storageKey()));

    CommandResult.GroupDeleted deleted = (CommandResult.GroupDeleted) apply(deleteGroup(TOPIC, "billng"));
    testLog.reopen();

    assertTrue(deleted.existed());
    assertEquals(2, deleted.removed().size());
    assertArrayEquals(refs.get(0).storageKey(), deleted.removed().get(0));
    assertNull(testLog.read(refs.get(0).storageKey()));
    assertNull(testLog.read(refs.get(1).storageKey()));
    assertEquals(2, testLog.stateMachine().pending(TOPIC));
    assertEquals(List.of("billing"), GroupRegistry.read(testLog.store(), TOPIC));
    assertEquals(0, testLog.countIndexKeys(StorageKeys.ackMarkTopicPrefix(StorageKeys.topicHash(TOPIC))));
    // billing is the only group now: its ack deletes at once.
    assertEquals(1, ((CommandResult.Removed) apply(ack(TOPIC, "billing", refs.get(2).storageKey())))
        .storageKeys().size());
    assertFalse(((CommandResult.GroupDeleted) apply(deleteGroup(TOPIC, "billng"))).existed());
  }

  @Test
  void deletingTheLastGroupKeepsItsMessagesForTheNextGroup() {
    apply(createGroup(TOPIC, "billing"));
    apply(store(message(TOPIC, "o1", 100)));

    CommandResult.GroupDeleted deleted = (CommandResult.GroupDeleted) apply(deleteGroup(TOPIC, "billing"));

    assertTrue(deleted.existed());
    assertEquals(0, deleted.removed().size());
    assertEquals(1, testLog.stateMachine().pending(TOPIC));
    assertEquals(List.of(), GroupRegistry.read(testLog.store(), TOPIC));
  }

  @Test
  void aPurgeRemovesInChunksOnlyWhatWasStoredBeforeItsFirstChunk() {
    apply(createGroup(TOPIC, "billing"));
    for (int i = 0; i < 5; i++) {
      apply(store(message(TOPIC, "o" + i, 100 * i, "k" + i, 50_000, Map.of())));
    }

    CommandResult.Purged first = (CommandResult.Purged) apply(purge(TOPIC, 2, 0));
    StoredRef during = stored(apply(store(message(TOPIC, "new", 0))));
    CommandResult.Purged second = (CommandResult.Purged) apply(purge(TOPIC, 2, first.beforeEventId()));
    CommandResult.Purged third = (CommandResult.Purged) apply(purge(TOPIC, 2, first.beforeEventId()));

    assertEquals(List.of(2, 2, 1), List.of(first.removed().size(), second.removed().size(), third.removed().size()));
    assertEquals(List.of(true, true, false), List.of(first.more(), second.more(), third.more()));
    assertEquals(List.of(during.message()), testLog.messagesOf(TOPIC));
    assertEquals(1, testLog.stateMachine().pending(TOPIC));
    assertEquals(0, testLog.countIndexKeys(StorageKeys.expiryPrefix(TOPIC)));
    assertNull(testLog.store().get(Space.INDEX, StorageKeys.messageKeyIndex(TOPIC, "k0")));
    assertEquals(List.of("billing"), GroupRegistry.read(testLog.store(), TOPIC), "a purge keeps the groups");
  }

  @Test
  void deletingATopicRemovesItsMessagesGroupsAndMetadataDurably() {
    apply(createGroup(TOPIC, "billing"));
    apply(createGroup(TOPIC, "mailer"));
    apply(store(message(TOPIC, "o1", 100, "k1", 9_000, Map.of()), message(TOPIC, "o2", 200),
        message(TOPIC, "o3", 300)));

    CommandResult.Purged first = (CommandResult.Purged) apply(deleteTopic(TOPIC, 2));
    CommandResult.Purged last = (CommandResult.Purged) apply(deleteTopic(TOPIC, 2));
    testLog.reopen();

    assertFalse(first.topicDeleted());
    assertTrue(first.more());
    assertTrue(last.topicDeleted());
    assertEquals(List.of("billing", "mailer"), last.deletedGroups());
    assertFalse(testLog.stateMachine().knowsTopic(TOPIC));
    assertEquals(0, testLog.messagesOf(TOPIC).size());
    assertEquals(List.of(), GroupRegistry.read(testLog.store(), TOPIC));
    assertEquals(0, testLog.countIndexKeys(StorageKeys.expiryPrefix(TOPIC)));
    assertNull(testLog.store().get(Space.INDEX, StorageKeys.topicMeta(TOPIC)));
    assertFalse(((CommandResult.Purged) apply(deleteTopic(TOPIC, 2))).existed());
    // The name is free again: a new message makes a new topic.
    apply(store(message(TOPIC, "again", 0)));
    assertEquals(1, testLog.stateMachine().pending(TOPIC));
  }

  private CommandResult apply(LogCommand command) {
    return testLog.apply(command);
  }

  private static StoredRef stored(CommandResult result) {
    return ((CommandResult.Stored) result).messages().get(0);
  }
}
