package io.futureq.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.futureq.log.CommandResult.Reason;
import io.futureq.log.CommandResult.StoredRef;
import io.futureq.log.proto.ApplyResult;
import io.futureq.log.proto.ApplyResults;
import io.futureq.log.proto.Header;
import io.futureq.log.proto.StoredMessage;
import io.futureq.storage.StorageKeys;
import java.util.List;
import org.junit.jupiter.api.Test;

class CommandResultCodecTest {
  private static final byte[] KEY_A = StorageKeys.message(StorageKeys.topicHash("orders"), 7, 1);
  private static final byte[] KEY_B = StorageKeys.message(StorageKeys.topicHash("orders"), 9, 2);
  private static final StoredMessage MESSAGE = StoredMessage.newBuilder().setTopic("orders")
      .setPayload(ByteString.copyFromUtf8("body")).setKey("k")
      .addHeaders(Header.newBuilder().setKey("h").setValue("v")).setDueMs(7_000)
      .setEnqueuedMs(6_000).setExpireMs(90_000).setEventId(1).build();

  /** A store's results name the messages, in order with their duplicate flags, and carry no payloads back. */
  @Test
  void storedRoundTripsAsKeysEventIdsAndDuplicateFlagsInOrderWithoutTheContent() {
    CommandResult.Stored original = new CommandResult.Stored(List.of(
        new StoredRef(KEY_A, MESSAGE, false), new StoredRef(KEY_B, MESSAGE.toBuilder().setEventId(2).build(), true)));
    ApplyResults encoded = CommandResultCodec.encode(List.of(original));
    CommandResult.Stored stored = (CommandResult.Stored) CommandResultCodec.decode(encoded).get(0);

    assertEquals(2, stored.messages().size());
    StoredMessage named = StoredMessage.newBuilder().setEventId(1).build();
    assertRef(new StoredRef(KEY_A, named, false), stored.messages().get(0));
    assertRef(new StoredRef(KEY_B, named.toBuilder().setEventId(2).build(), true), stored.messages().get(1));
  }

  @Test
  void removedRoundTripsWithEveryReason() {
    for (Reason reason : Reason.values()) {
      CommandResult.Removed removed =
          (CommandResult.Removed) roundTrip(new CommandResult.Removed("orders", List.of(KEY_A, KEY_B), reason));

      assertEquals("orders", removed.topic());
      assertEquals(reason, removed.reason());
      assertEquals(2, removed.storageKeys().size());
      assertArrayEquals(KEY_A, removed.storageKeys().get(0));
      assertArrayEquals(KEY_B, removed.storageKeys().get(1));
    }
  }

  @Test
  void cancelledRoundTripsWithAndWithoutAMessage() {
    CommandResult.Cancelled hit = (CommandResult.Cancelled) roundTrip(new CommandResult.Cancelled("orders", KEY_A,
        MESSAGE, 17));
    CommandResult.Cancelled miss = (CommandResult.Cancelled) roundTrip(new CommandResult.Cancelled("orders", null,
        null, 18));

    assertTrue(hit.existed());
    assertArrayEquals(KEY_A, hit.storageKey());
    assertEquals(MESSAGE, hit.message());
    assertEquals(17, hit.logIndex());
    assertFalse(miss.existed());
    assertEquals(18, miss.logIndex());
    assertEquals("orders", miss.topic());
    assertNull(miss.message());
  }

  @Test
  void groupCreatedRoundTrips() {
    assertEquals(new CommandResult.NackDelayed("orders", "billing", 3),
        roundTrip(new CommandResult.NackDelayed("orders", "billing", 3)));
    assertEquals(new CommandResult.GroupCreated("orders", "billing", true, 41),
        roundTrip(new CommandResult.GroupCreated("orders", "billing", true, 41)));
    assertEquals(new CommandResult.GroupCreated("orders", "billing", false, 42),
        roundTrip(new CommandResult.GroupCreated("orders", "billing", false, 42)));
  }

  @Test
  void deadLetteredRoundTripsWithAndWithoutACopy() {
    CommandResult.DeadLettered moved = (CommandResult.DeadLettered) roundTrip(
        new CommandResult.DeadLettered("orders", "billing", new StoredRef(KEY_B, MESSAGE, false)));
    CommandResult.DeadLettered gone =
        (CommandResult.DeadLettered) roundTrip(new CommandResult.DeadLettered("orders", "billing", null));

    assertEquals("orders", moved.topic());
    assertEquals("billing", moved.group());
    assertRef(new StoredRef(KEY_B, MESSAGE, false), moved.copy());
    assertNull(gone.copy());
    assertEquals("billing", gone.group());
  }

  @Test
  void journalResultsRoundTrip() {
    assertEquals(new CommandResult.JournalWritten(3, 17), roundTrip(new CommandResult.JournalWritten(3, 17)));
    assertEquals(new CommandResult.JournalDeleted("cart-1", 42, 7, 18),
        roundTrip(new CommandResult.JournalDeleted("cart-1", 42, 7, 18)));
  }

  @Test
  void administrationResultsRoundTrip() {
    CommandResult.GroupDeleted deleted = (CommandResult.GroupDeleted) roundTrip(
        new CommandResult.GroupDeleted("orders", "billng", true, List.of(KEY_A, KEY_B)));
    assertEquals("billng", deleted.group());
    assertTrue(deleted.existed());
    assertArrayEquals(KEY_B, deleted.removed().get(1));

    CommandResult.Purged purged = (CommandResult.Purged) roundTrip(
        new CommandResult.Purged("orders", true, List.of(KEY_A), true, 42, false, List.of()));
    assertEquals(List.of(true, true, 42L, false), List.of(purged.existed(), purged.more(), purged.beforeEventId(),
        purged.topicDeleted()));
    assertArrayEquals(KEY_A, purged.removed().get(0));
    CommandResult.Purged topicGone = (CommandResult.Purged) roundTrip(
        new CommandResult.Purged("orders", true, List.of(), false, 42, true, List.of("billing", "mailer")));
    assertEquals(List.of("billing", "mailer"), topicGone.deletedGroups());

    CommandResult.Rescheduled moved = (CommandResult.Rescheduled) roundTrip(new CommandResult.Rescheduled("orders",
        KEY_A, new StoredRef(KEY_B, MESSAGE, false), List.of("billing")));
    assertArrayEquals(KEY_A, moved.from());
    assertRef(new StoredRef(KEY_B, MESSAGE, false), moved.moved());
    assertEquals(List.of("billing"), moved.ackedBy());
    assertFalse(((CommandResult.Rescheduled) roundTrip(
        new CommandResult.Rescheduled("orders", null, null, List.of()))).existed());
  }

  @Test
  void aMixedEntryKeepsOneResultPerCommandInOrder() {
    List<CommandResult> results = List.of(new CommandResult.GroupCreated("orders", "billing", false, 42),
        new CommandResult.Stored(List.of(new StoredRef(KEY_A, MESSAGE, false))),
        new CommandResult.Cancelled("orders", null, null, 42),
        new CommandResult.Removed("orders", List.of(), Reason.ACKED));

    List<CommandResult> decoded = CommandResultCodec.decode(CommandResultCodec.encode(results));

    assertEquals(4, decoded.size());
    for (int i = 0; i < results.size(); i++) {
      assertEquals(results.get(i).getClass(), decoded.get(i).getClass(), "result " + i);
    }
    assertTrue(CommandResultCodec.decode(CommandResultCodec.encode(List.of())).isEmpty());
  }

  @Test
  void aResultWithoutABodyIsRejected() {
    ApplyResults unknown = ApplyResults.newBuilder().addResults(ApplyResult.getDefaultInstance()).build();

    assertThrows(IllegalArgumentException.class, () -> CommandResultCodec.decode(unknown));
  }

  private static CommandResult roundTrip(CommandResult result) {
    List<CommandResult> decoded = CommandResultCodec.decode(CommandResultCodec.encode(List.of(result)));
    assertEquals(1, decoded.size());
    return decoded.get(0);
  }

  private static void assertRef(StoredRef expected, StoredRef actual) {
    assertArrayEquals(expected.storageKey(), actual.storageKey());
    assertEquals(expected.message(), actual.message());
    assertEquals(expected.duplicate(), actual.duplicate());
  }
}
