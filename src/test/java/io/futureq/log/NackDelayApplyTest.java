package io.futureq.log;

import static io.futureq.log.Commands.ack;
import static io.futureq.log.Commands.createGroup;
import static io.futureq.log.Commands.message;
import static io.futureq.log.Commands.store;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.futureq.log.proto.DelayedDelivery;
import io.futureq.log.proto.DeleteGroup;
import io.futureq.log.proto.LogCommand;
import io.futureq.log.proto.NackDelay;
import io.futureq.log.proto.StoredMessage;
import io.futureq.storage.OrderedStore.Space;
import io.futureq.storage.StorageKeys;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A durable nack delay marks the message for its group, and goes when the message goes. */
class NackDelayApplyTest {
  private static final String TOPIC = "retries";

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

  private static LogCommand nack(String group, byte[] key, long notBeforeMs, int deliveries) {
    return LogCommand.newBuilder().setNackDelay(NackDelay.newBuilder().setTopic(TOPIC).setGroup(group)
        .addDeliveries(DelayedDelivery.newBuilder().setStorageKey(ByteString.copyFrom(key))
            .setNotBeforeMs(notBeforeMs).setDeliveries(deliveries))).build();
  }

  private byte[] stored(String payload) {
    return ((CommandResult.Stored) testLog.apply(store(message(TOPIC, payload, 0)))).messages().get(0).storageKey();
  }

  private StoredMessage record(byte[] key) throws Exception {
    return StoredMessage.parseFrom(testLog.store().get(Space.MESSAGES, key));
  }

  @Test
  void aNackDelayMarksTheMessageForItsGroupAndFlagsIt() throws Exception {
    testLog.apply(createGroup(TOPIC, "g"));
    byte[] key = stored("m");
    assertFalse(record(key).getNackDelayed());
    CommandResult.NackDelayed result = (CommandResult.NackDelayed) testLog.apply(nack("g", key, 123_456, 3));
    assertEquals(1, result.marked());
    assertTrue(record(key).getNackDelayed());
    assertEquals(new NackMark(123_456, 3),
        NackMark.parse(testLog.store().get(Space.INDEX, StorageKeys.nackMark(key, "g"))));
    // a later nack of the same message replaces the mark
    testLog.apply(nack("g", key, 200_000, 4));
    assertEquals(new NackMark(200_000, 4),
        NackMark.parse(testLog.store().get(Space.INDEX, StorageKeys.nackMark(key, "g"))));
  }

  @Test
  void marksGoWithTheMessageAndNothingIsMarkedOnceAckedOrGone() {
    testLog.apply(createGroup(TOPIC, "a"));
    testLog.apply(createGroup(TOPIC, "b"));
    byte[] key = stored("m");
    testLog.apply(nack("a", key, 1_000, 1));
    testLog.apply(nack("b", key, 2_000, 1));
    assertEquals(2, testLog.countIndexKeys(StorageKeys.nackMarkPrefix(key)));
    testLog.apply(ack(TOPIC, "a", key));
    assertEquals(0, ((CommandResult.NackDelayed) testLog.apply(nack("a", key, 3_000, 2))).marked(),
        "a group that acked it has nothing to delay");
    testLog.apply(ack(TOPIC, "b", key));
    assertEquals(null, testLog.store().get(Space.MESSAGES, key));
    assertEquals(0, testLog.countIndexKeys(StorageKeys.nackMarkPrefix(key)), "the marks went with the message");
    assertEquals(0, ((CommandResult.NackDelayed) testLog.apply(nack("b", key, 3_000, 2))).marked());
    assertEquals(0, testLog.countIndexKeys(StorageKeys.nackMarkPrefix(key)));
  }

  @Test
  void deletingAGroupDeletesItsNackMarksAndKeepsTheOthers() {
    testLog.apply(createGroup(TOPIC, "a"));
    testLog.apply(createGroup(TOPIC, "b"));
    byte[] key = stored("m");
    testLog.apply(nack("a", key, 1_000, 1));
    testLog.apply(nack("b", key, 2_000, 1));
    testLog.apply(LogCommand.newBuilder().setDeleteGroup(
        DeleteGroup.newBuilder().setTopic(TOPIC).setGroup("a")).build());
    assertEquals(null, testLog.store().get(Space.INDEX, StorageKeys.nackMark(key, "a")),
        "a new group named a must not inherit the deleted one's delay");
    assertEquals(new NackMark(2_000, 1),
        NackMark.parse(testLog.store().get(Space.INDEX, StorageKeys.nackMark(key, "b"))));
  }
}
