package io.futureq.log;

import static io.futureq.log.Commands.ack;
import static io.futureq.log.Commands.createGroup;
import static io.futureq.log.Commands.deadLetter;
import static io.futureq.log.Commands.message;
import static io.futureq.log.Commands.store;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.futureq.log.proto.LogCommand;
import io.futureq.log.proto.StoredMessage;
import io.futureq.storage.StorageKeys;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How the state machine applies DeadLetter: the copy, the ack it counts as, and retries. */
class DeadLetterApplyTest {
  private static final String TOPIC = "orders";

  @TempDir
  Path dir;

  private TestLog testLog;

  @BeforeEach
  void open() {
    testLog = TestLog.open(dir, 1000);
  }

  @AfterEach
  void close() {
    testLog.close();
  }

  /** A dead letter of a dead letter says why it died this time, once, not beside why it died before. */
  @Test
  void aDeadLettersOwnHeadersReplaceThoseOfTheSameNameOnceEach() {
    apply(createGroup(TOPIC, "billing"));
    byte[] key = storedKey(apply(store(message(TOPIC, "body", 700, "k", 0,
        Map.of("futureq-dead-letter-reason", "earlier", "futureq-dead-letter-group", "other", "h", "v")))));

    CommandResult.DeadLettered result =
        (CommandResult.DeadLettered) apply(deadLetter(TOPIC, "billing", key, "now", 4_321));

    StoredMessage copy = testLog.read(result.copy().storageKey());
    assertEquals(5, copy.getHeadersCount(), () -> copy.getHeadersList().toString());
    assertEquals("now", Headers.asMap(copy.getHeadersList()).get("futureq-dead-letter-reason"));
    assertEquals("billing", Headers.asMap(copy.getHeadersList()).get("futureq-dead-letter-group"));
  }

  @Test
  void deadLetterStoresACopyAndCountsAsThatGroupsAck() {
    apply(createGroup(TOPIC, "billing"));
    apply(createGroup(TOPIC, "shipping"));
    byte[] key = storedKey(apply(store(message(TOPIC, "body", 700, "k", 0, Map.of("h", "v")))));

    CommandResult.DeadLettered result =
        (CommandResult.DeadLettered) apply(deadLetter(TOPIC, "billing", key, "why", 4_321));

    String deadTopic = TOPIC + ".dead-letter";
    StoredMessage copy = testLog.read(result.copy().storageKey());
    assertEquals(deadTopic, copy.getTopic());
    assertEquals("body", copy.getPayload().toStringUtf8());
    assertEquals(Map.of("h", "v", "futureq-original-key", "k", "futureq-dead-letter-reason", "why",
        "futureq-dead-letter-group", "billing", "futureq-original-due-at-unix-ms", "700"),
        Headers.asMap(copy.getHeadersList()));
    assertEquals(4_321, copy.getDueMs());
    assertEquals(1, pending(deadTopic));
    assertEquals(1, pending(TOPIC));

    assertEquals(1, removedKeys(apply(ack(TOPIC, "shipping", key))).size());
    assertEquals(0, pending(TOPIC));
  }

  @Test
  void aRetriedDeadLetterOfAMessageAnotherGroupStillHoldsStoresOneCopy() {
    apply(createGroup(TOPIC, "billing"));
    apply(createGroup(TOPIC, "shipping"));
    byte[] key = storedKey(apply(store(message(TOPIC, "body", 700))));
    String deadTopic = TOPIC + ".dead-letter";

    CommandResult.DeadLettered first =
        (CommandResult.DeadLettered) apply(deadLetter(TOPIC, "billing", key, "max-deliveries", 4_321));
    // The group retries when the first append's outcome was unknown (a timeout), though it committed.
    CommandResult.DeadLettered retry =
        (CommandResult.DeadLettered) apply(deadLetter(TOPIC, "billing", key, "max-deliveries", 9_999));

    assertNotNull(first.copy());
    assertNull(retry.copy());
    assertEquals(1, testLog.messagesOf(deadTopic).size());
    assertEquals(1, pending(deadTopic));
    assertEquals(1, pending(TOPIC));
    assertEquals(1, removedKeys(apply(ack(TOPIC, "shipping", key))).size());
    assertEquals(0, pending(TOPIC));
  }

  @Test
  void aDeadLetterFromAGroupThatAlreadyAckedStoresNoCopy() {
    apply(createGroup(TOPIC, "billing"));
    apply(createGroup(TOPIC, "shipping"));
    byte[] key = storedKey(apply(store(message(TOPIC, "body", 700))));
    apply(ack(TOPIC, "billing", key));

    CommandResult.DeadLettered late =
        (CommandResult.DeadLettered) apply(deadLetter(TOPIC, "billing", key, "max-deliveries", 4_321));

    assertNull(late.copy());
    assertEquals(0, pending(TOPIC + ".dead-letter"));
    assertEquals(1, pending(TOPIC));
  }

  @Test
  void deadLetteringAGoneMessageStoresNothing() {
    CommandResult.DeadLettered result = (CommandResult.DeadLettered) apply(
        deadLetter(TOPIC, "billing", StorageKeys.message(StorageKeys.topicHash(TOPIC), 1, 99), "why", 1));

    assertNull(result.copy());
    assertEquals(0, pending(TOPIC + ".dead-letter"));
  }

  private CommandResult apply(LogCommand command) {
    return testLog.apply(command);
  }

  private long pending(String topic) {
    return testLog.stateMachine().pending(topic);
  }

  private static byte[] storedKey(CommandResult result) {
    return ((CommandResult.Stored) result).messages().get(0).storageKey();
  }

  private static List<byte[]> removedKeys(CommandResult result) {
    return ((CommandResult.Removed) result).storageKeys();
  }
}
