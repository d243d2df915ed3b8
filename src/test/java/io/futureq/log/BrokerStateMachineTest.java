package io.futureq.log;

import static io.futureq.log.Commands.ack;
import static io.futureq.log.Commands.cancelByKey;
import static io.futureq.log.Commands.cancelByStorageKey;
import static io.futureq.log.Commands.createGroup;
import static io.futureq.log.Commands.expire;
import static io.futureq.log.Commands.message;
import static io.futureq.log.Commands.store;
import static io.futureq.log.Commands.storeAt;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.futureq.log.CommandResult.Reason;
import io.futureq.log.CommandResult.StoredRef;
import io.futureq.log.proto.JournalDelete;
import io.futureq.log.proto.JournalEvent;
import io.futureq.log.proto.JournalWrite;
import io.futureq.log.proto.LeaderEntry;
import io.futureq.log.proto.LogCommand;
import io.futureq.log.proto.NewMessage;
import io.futureq.storage.OrderedStore.Space;
import io.futureq.storage.StorageKeys;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BrokerStateMachineTest {
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

  /**
   * ACK_LEVEL_LEADER answers with ids before the entry is applied: they must follow from the entry alone. Every new
   * message takes the next slot of its entry, also a duplicate and the messages of a fenced leader entry.
   */
  @Test
  void eventIdsFollowFromTheEntryIndexAndEachNewMessagesPlaceInIt() {
    StoredRef original = stored(apply(store(keyed("k", "first")))).get(0);
    BrokerStateMachine machine = testLog.stateMachine();
    long index = machine.appliedIndex() + 1;
    // A leader entry of another term than the log's (standalone: 1) is fenced.
    LogCommand fenced = LogCommand.newBuilder().setLeaderEntry(LeaderEntry.newBuilder()
        .setTerm(99).addCommands(store(message(TOPIC, "c", 0), message(TOPIC, "d", 0)))).build();
    try (BrokerStateMachine.Prepared prepared = machine.prepare(index,
        List.of(store(keyed("k", "again"), message(TOPIC, "a", 0)), createGroup(TOPIC, "g"), fenced,
            store(message(TOPIC, "e", 3_000))))) {
      List<CommandResult> results = prepared.results();
      List<StoredRef> first = stored(results.get(0));
      assertTrue(first.get(0).duplicate());
      assertEquals(original.message().getEventId(), first.get(0).message().getEventId(), "a duplicate's id is the "
          + "stored message's");
      assertEquals(EventIds.of(index, 1), first.get(1).message().getEventId(), "the duplicate took slot 0");
      assertTrue(((CommandResult.LeaderEntryApplied) results.get(2)).fenced());
      StoredRef e = stored(results.get(3)).get(0);
      assertEquals(EventIds.of(index, 4), e.message().getEventId(), "the fenced entry's two messages took slots 2, 3");
      assertEquals(EventIds.of(index, 4), StorageKeys.eventIdOf(e.storageKey()));
      machine.abandoned(prepared);
    }
  }

  @Test
  void storeAssignsIncreasingEventIdsThatSurviveReopen() {
    List<StoredRef> first = stored(apply(store(message(TOPIC, "a", 5_500), message(TOPIC, "b", 1_200))));
    testLog.reopen();
    StoredRef later = stored(apply(store(message(TOPIC, "c", 0)))).get(0);

    long a = first.get(0).message().getEventId();
    long b = first.get(1).message().getEventId();
    assertTrue(a < b && b < later.message().getEventId());
    for (StoredRef ref : List.of(first.get(0), first.get(1), later)) {
      assertFalse(ref.duplicate());
      assertEquals(ref.message().getEventId(), StorageKeys.eventIdOf(ref.storageKey()));
      assertEquals(StorageKeys.topicHash(TOPIC), StorageKeys.topicHashOf(ref.storageKey()));
      assertEquals(ref.message().getDueMs() / BUCKET_MS, StorageKeys.dueBucketOf(ref.storageKey()));
      assertEquals(ref.message(), testLog.read(ref.storageKey()));
    }
    assertEquals(3, pending(TOPIC));
  }

  @Test
  void publishingAStoredKeyAgainReturnsTheStoredMessageAsDuplicate() {
    StoredRef original = stored(apply(store(keyed("k", "first")))).get(0);

    StoredRef again = stored(apply(store(keyed("k", "second")))).get(0);

    assertTrue(again.duplicate());
    assertArrayEquals(original.storageKey(), again.storageKey());
    assertEquals("first", again.message().getPayload().toStringUtf8());
    assertEquals(1, pending(TOPIC));
  }

  @Test
  void aKeyHeldByAnExpiredMessageIsTakenByTheNextPublish() {
    apply(createGroup(TOPIC, "billing"));
    apply(createGroup(TOPIC, "shipping"));
    StoredRef expired = stored(apply(storeAt(500, message(TOPIC, "old", 1_000, "k", 1_001, Map.of())))).get(0);
    apply(ack(TOPIC, "billing", expired.storageKey()));

    StoredRef fresh = stored(apply(storeAt(60_000, message(TOPIC, "new", 60_000, "k", 0, Map.of())))).get(0);

    assertFalse(fresh.duplicate());
    assertEquals("new", fresh.message().getPayload().toStringUtf8());
    assertEquals(List.of("new"), testLog.messagesOf(TOPIC).stream().map(m -> m.getPayload().toStringUtf8()).toList());
    assertEquals(1, pending(TOPIC));
    assertArrayEquals(fresh.storageKey(), testLog.store().get(Space.INDEX, StorageKeys.messageKeyIndex(TOPIC, "k")));
    assertEquals(0, testLog.countIndexKeys(StorageKeys.expiryPrefix(TOPIC)));
    assertEquals(0, testLog.countIndexKeys(StorageKeys.ackMarkPrefix(expired.storageKey())));
    assertTrue(removedKeys(apply(expire(TOPIC, expired.storageKey()))).isEmpty());
    assertEquals(1, pending(TOPIC));
  }

  @Test
  void aKeyHeldByAMessageExpiringAfterThePublishStaysTaken() {
    StoredRef held = stored(apply(storeAt(500, message(TOPIC, "old", 1_000, "k", 60_001, Map.of())))).get(0);

    StoredRef again = stored(apply(storeAt(60_000, message(TOPIC, "new", 60_000, "k", 0, Map.of())))).get(0);

    assertTrue(again.duplicate());
    assertArrayEquals(held.storageKey(), again.storageKey());
    assertEquals(1, pending(TOPIC));
  }

  @Test
  void aKeyRepeatedWithinOneBatchIsStoredOnce() {
    List<StoredRef> refs = stored(apply(store(keyed("k", "first"), keyed("k", "second"), keyed("other", "x"))));

    assertFalse(refs.get(0).duplicate());
    assertTrue(refs.get(1).duplicate());
    assertFalse(refs.get(2).duplicate());
    assertArrayEquals(refs.get(0).storageKey(), refs.get(1).storageKey());
    assertEquals(2, pending(TOPIC));
  }

  /**
   * The apply counts a request's messages per run of one topic: runs that alternate, duplicates and a holder that
   * expired within the same batch must still leave every topic's count exact, and name the topics that had nothing.
   */
  @Test
  void pendingCountsStayExactAcrossTopicRunsDuplicatesAndExpiredHoldersInOneBatch() {
    apply(storeAt(500, message("other", "held", 1_000, "k", 0, Map.of())));
    CommandResult.Stored result = (CommandResult.Stored) apply(storeAt(60_000,
        message(TOPIC, "a", 0), message(TOPIC, "b", 0, "k", 0, Map.of()), message(TOPIC, "c", 0, "k", 0, Map.of()),
        message("other", "d", 0), message("other", "e", 0, "k", 0, Map.of()),
        message(TOPIC, "f", 0, "short", 60_000, Map.of()), message(TOPIC, "g", 0, "short", 0, Map.of()),
        message(TOPIC, "h", 0)));

    List<Boolean> duplicates = result.messages().stream().map(StoredRef::duplicate).toList();
    assertEquals(List.of(false, false, true, false, true, false, false, false), duplicates);
    // "f" expired at 60,000, the batch's own time: "g" takes its key and "f" is gone again.
    assertEquals(List.of("a", "b", "g", "h"),
        testLog.messagesOf(TOPIC).stream().map(m -> m.getPayload().toStringUtf8()).sorted().toList());
    assertEquals(4, pending(TOPIC));
    assertEquals(2, pending("other"));
    assertEquals(Set.of(TOPIC), result.newlyPending());
  }

  @Test
  void aKeyRepeatedAcrossCommandsOfOneEntryIsStoredOnce() {
    testLog.log().close();
    BrokerStateMachine.Prepared prepared =
        testLog.stateMachine().prepare(1, List.of(store(keyed("k", "a")), store(keyed("k", "b"))));
    testLog.store().commit(prepared.batch(), true);
    List<CommandResult> results = prepared.results();
    testLog.stateMachine().committed(prepared);

    assertTrue(stored(results.get(1)).get(0).duplicate());
    assertArrayEquals(stored(results.get(0)).get(0).storageKey(), stored(results.get(1)).get(0).storageKey());
    assertEquals(1, pending(TOPIC));
  }

  @Test
  void journalDeleteRemovesEventsUpToItsMarkAndNeverLowersTheHighestSequenceNr() {
    testLog.log().close();
    BrokerStateMachine.Prepared prepared = testLog.stateMachine().prepare(1, List.of(
        journalWrite("cart", 1, 2, 3), journalWrite("cart-2", 1), journalDelete("cart", 2), journalDelete("cart", 1)));
    testLog.store().commit(prepared.batch(), true);
    List<CommandResult> results = prepared.results();
    testLog.stateMachine().committed(prepared);

    assertEquals(new CommandResult.JournalWritten(3, 1), results.get(0));
    assertEquals(new CommandResult.JournalDeleted("cart", 2, 2, 1), results.get(2));
    assertEquals(new CommandResult.JournalDeleted("cart", 2, 0, 1), results.get(3));
    assertEquals(1, testLog.countIndexKeys(StorageKeys.journalEventPrefix("cart")));
    assertNotNull(testLog.store().get(Space.INDEX, StorageKeys.journalEvent("cart", 3)));
    assertEquals(1, testLog.countIndexKeys(StorageKeys.journalEventPrefix("cart-2")));
    assertEquals(3, longAt(StorageKeys.journalHighest("cart")));
  }

  @Test
  void journalDeletePastTheHighestSequenceNrStopsAtIt() {
    apply(journalWrite("cart", 1, 2));

    CommandResult.JournalDeleted deleted = (CommandResult.JournalDeleted) apply(journalDelete("cart", Long.MAX_VALUE));
    apply(journalWrite("cart", 3));

    assertEquals(2, deleted.deletedTo());
    assertEquals(2, deleted.removed());
    assertEquals(2, longAt(StorageKeys.journalDeletedTo("cart")));
    assertEquals(3, longAt(StorageKeys.journalHighest("cart")));
    assertEquals(1, testLog.countIndexKeys(StorageKeys.journalEventPrefix("cart")));
  }

  @Test
  void cancelByKeyRemovesTheMessageAndFreesTheKey() {
    StoredRef ref = stored(apply(store(keyed("k", "a")))).get(0);

    CommandResult.Cancelled first = (CommandResult.Cancelled) apply(cancelByKey(TOPIC, "k"));
    CommandResult.Cancelled second = (CommandResult.Cancelled) apply(cancelByKey(TOPIC, "k"));

    assertTrue(first.existed());
    assertArrayEquals(ref.storageKey(), first.storageKey());
    assertEquals("a", first.message().getPayload().toStringUtf8());
    assertFalse(second.existed());
    assertNull(testLog.store().get(Space.MESSAGES, ref.storageKey()));
    assertEquals(0, pending(TOPIC));
    assertFalse(stored(apply(store(keyed("k", "b")))).get(0).duplicate());
  }

  @Test
  void cancelByStorageKeyRemovesOnlyOnItsOwnTopic() {
    StoredRef ref = stored(apply(store(message(TOPIC, "a", 0)))).get(0);

    CommandResult.Cancelled wrongTopic =
        (CommandResult.Cancelled) apply(cancelByStorageKey("payments", ref.storageKey()));
    CommandResult.Cancelled first = (CommandResult.Cancelled) apply(cancelByStorageKey(TOPIC, ref.storageKey()));
    CommandResult.Cancelled second = (CommandResult.Cancelled) apply(cancelByStorageKey(TOPIC, ref.storageKey()));

    assertFalse(wrongTopic.existed());
    assertTrue(first.existed());
    assertFalse(second.existed());
    assertNull(testLog.store().get(Space.MESSAGES, ref.storageKey()));
    assertEquals(0, pending(TOPIC));
  }

  @Test
  void universalAckDeletesWhenTheTopicHasNoGroups() {
    StoredRef ref = stored(apply(store(message(TOPIC, "a", 0)))).get(0);

    CommandResult.Removed removed = (CommandResult.Removed) apply(ack(TOPIC, "", ref.storageKey()));

    assertEquals(Reason.ACKED, removed.reason());
    assertEquals(1, removed.storageKeys().size());
    assertArrayEquals(ref.storageKey(), removed.storageKeys().get(0));
    assertNull(testLog.store().get(Space.MESSAGES, ref.storageKey()));
    assertEquals(0, pending(TOPIC));
  }

  @Test
  void messageIsRemovedOnlyAfterEveryGroupAcked() {
    apply(createGroup(TOPIC, "billing"));
    apply(createGroup(TOPIC, "shipping"));
    byte[] key = stored(apply(store(message(TOPIC, "a", 0)))).get(0).storageKey();
    assertEquals(1, pending(TOPIC));

    assertTrue(removedKeys(apply(ack(TOPIC, "billing", key))).isEmpty());
    assertTrue(removedKeys(apply(ack(TOPIC, "billing", key))).isEmpty());
    assertTrue(removedKeys(apply(ack(TOPIC, "", key))).isEmpty());
    assertEquals(1, pending(TOPIC));
    assertNotNull(testLog.store().get(Space.MESSAGES, key));

    assertEquals(1, removedKeys(apply(ack(TOPIC, "shipping", key))).size());
    assertEquals(0, pending(TOPIC));
    assertNull(testLog.store().get(Space.MESSAGES, key));
    assertEquals(0, testLog.countIndexKeys(StorageKeys.ackMarkPrefix(key)));
  }

  @Test
  void ackFromAnUnknownGroupIsIgnored() {
    apply(createGroup(TOPIC, "billing"));
    apply(createGroup(TOPIC, "shipping"));
    byte[] key = stored(apply(store(message(TOPIC, "a", 0)))).get(0).storageKey();

    assertTrue(removedKeys(apply(ack(TOPIC, "stranger", key))).isEmpty());
    assertTrue(removedKeys(apply(ack(TOPIC, "billing", key))).isEmpty());

    assertEquals(1, pending(TOPIC));
    assertNotNull(testLog.store().get(Space.MESSAGES, key));
  }

  @Test
  void creatingAGroupTwiceRegistersItOnce() {
    CommandResult.GroupCreated first = (CommandResult.GroupCreated) apply(createGroup(TOPIC, "billing"));
    CommandResult.GroupCreated second = (CommandResult.GroupCreated) apply(createGroup(TOPIC, "billing"));

    assertFalse(first.existed());
    assertTrue(second.existed());
    assertEquals(List.of("billing"), GroupRegistry.read(testLog.store(), TOPIC));
    assertEquals(List.of(), GroupRegistry.read(testLog.store(), "payments"));
  }

  @Test
  void expiringRemovesTheMessageAndFreesItsKey() {
    long expireMs = 9_000;
    StoredRef ref = stored(apply(store(message(TOPIC, "a", 0, "k", expireMs, Map.of())))).get(0);
    assertEquals(1, testLog.countIndexKeys(StorageKeys.expiryPrefix(TOPIC)));

    assertTrue(removedKeys(apply(expire("payments", ref.storageKey()))).isEmpty());
    CommandResult.Removed removed = (CommandResult.Removed) apply(expire(TOPIC, ref.storageKey()));

    assertEquals(Reason.EXPIRED, removed.reason());
    assertArrayEquals(ref.storageKey(), removed.storageKeys().get(0));
    assertEquals(0, pending(TOPIC));
    assertEquals(0, testLog.countIndexKeys(StorageKeys.expiryPrefix(TOPIC)));
    assertNull(testLog.store().get(Space.INDEX, StorageKeys.messageKeyIndex(TOPIC, "k")));
    assertFalse(stored(apply(store(keyed("k", "b")))).get(0).duplicate());
  }

  @Test
  void reopeningWithAnotherBucketSizeFails() {
    testLog.log().close();

    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> new BrokerStateMachine(testLog.store(), 500));

    assertTrue(e.getMessage().contains("500ms") && e.getMessage().contains(BUCKET_MS + "ms"), e.getMessage());
  }

  @Test
  void shouldKeepItsState() {
    apply(createGroup(TOPIC, "billing"));
    apply(createGroup(TOPIC, "shipping"));
    byte[] key = stored(apply(store(message(TOPIC, "a", 0), message(TOPIC, "b", 0)))).get(0).storageKey();
    apply(ack(TOPIC, "billing", key));
    long index = testLog.log().appliedIndex();

    testLog.reopen();

    assertEquals(index, testLog.stateMachine().appliedIndex());
    assertEquals(2, pending(TOPIC));
    assertEquals(1, removedKeys(apply(ack(TOPIC, "shipping", key))).size());
    assertEquals(index + 1, testLog.log().appliedIndex());
    assertEquals(1, pending(TOPIC));
  }

  @Test
  void abandonedEntryLeavesNoTrace() {
    testLog.log().close();
    BrokerStateMachine.Prepared prepared = testLog.stateMachine().prepare(1, List.of(store(keyed("k", "a"))));
    byte[] key = stored(prepared.results().get(0)).get(0).storageKey();
    testLog.stateMachine().abandoned(prepared);

    assertEquals(0, pending(TOPIC));
    assertEquals(0, testLog.stateMachine().appliedIndex());
    assertNull(testLog.store().get(Space.MESSAGES, key));
    BrokerStateMachine.Prepared retry = testLog.stateMachine().prepare(1, List.of(store(keyed("k", "b"))));
    StoredRef ref = stored(retry.results().get(0)).get(0);
    retry.close();
    assertFalse(ref.duplicate());
    assertArrayEquals(key, ref.storageKey());
  }

  private CommandResult apply(LogCommand command) {
    return testLog.apply(command);
  }

  private long longAt(byte[] indexKey) {
    return ByteBuffer.wrap(testLog.store().get(Space.INDEX, indexKey)).getLong();
  }

  private static LogCommand journalWrite(String persistenceId, long... sequenceNrs) {
    JournalWrite.Builder write = JournalWrite.newBuilder();
    for (long seq : sequenceNrs) {
      write.addEvents(JournalEvent.newBuilder().setPersistenceId(persistenceId)
          .setSequenceNr(seq).setPayload(ByteString.copyFromUtf8("e" + seq)));
    }
    return LogCommand.newBuilder().setJournalWrite(write).build();
  }

  private static LogCommand journalDelete(String persistenceId, long toSequenceNr) {
    return LogCommand.newBuilder().setJournalDelete(JournalDelete.newBuilder()
        .setPersistenceId(persistenceId).setToSequenceNr(toSequenceNr)).build();
  }

  private long pending(String topic) {
    return testLog.stateMachine().pending(topic);
  }

  private static NewMessage keyed(String key, String payload) {
    return message(TOPIC, payload, 0, key, 0, Map.of());
  }

  private static List<StoredRef> stored(CommandResult result) {
    return ((CommandResult.Stored) result).messages();
  }

  private static List<byte[]> removedKeys(CommandResult result) {
    return ((CommandResult.Removed) result).storageKeys();
  }
}
