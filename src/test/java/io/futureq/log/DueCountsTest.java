package io.futureq.log;

import static io.futureq.log.Commands.ack;
import static io.futureq.log.Commands.cancelByKey;
import static io.futureq.log.Commands.createGroup;
import static io.futureq.log.Commands.deleteTopic;
import static io.futureq.log.Commands.expire;
import static io.futureq.log.Commands.message;
import static io.futureq.log.Commands.rescheduleByKey;
import static io.futureq.log.Commands.storeAt;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;

import io.futureq.log.CommandResult.StoredRef;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The timeline's counts follow every way a message is stored, moved or removed by the state machine, on RocksDB,
 * starting from what the store held when first asked and without reading messages afterwards.
 */
class DueCountsTest {
  private static final long BUCKET_MS = 1;
  private static final String TOPIC = "orders";
  private static final long T0 = 1_800_000_000_000L; // a whole second

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
  void countsWhatTheStoreHeldThenFollowsStoresMovesAndRemovals() throws Exception {
    testLog.apply(createGroup(TOPIC, "billing"));
    StoredRef a = stored(testLog.apply(storeAt(T0, message(TOPIC, "a", T0 + 1_000), message(TOPIC, "b", T0 + 1_500),
        message(TOPIC, "c", T0 + 3_000, "k-c", 0, Map.of()))));
    assertArrayEquals(new long[] {0, 2, 0, 1, 0}, window(5), "built from the store: seconds 1 and 3");

    StoredRef d = stored(testLog.apply(storeAt(T0, message(TOPIC, "d", T0 + 2_200, "k-d", T0 + 9_000, Map.of()))));
    testLog.apply(storeAt(T0, message(TOPIC, "e", T0 + 4_999, "k-e", 0, Map.of())));
    testLog.apply(storeAt(T0, message(TOPIC, "dup", T0 + 1_000, "k-e", 0, Map.of()))); // a duplicate: not counted
    testLog.apply(storeAt(T0, message("other", "x", T0 + 1_000)));
    assertArrayEquals(new long[] {0, 2, 1, 1, 1}, window(5));

    testLog.apply(rescheduleByKey(TOPIC, "k-c", T0 + 1_000, T0));
    assertArrayEquals(new long[] {0, 3, 1, 0, 1}, window(5), "rescheduled from second 3 to 1");
    testLog.apply(cancelByKey(TOPIC, "k-e"));
    testLog.apply(expire(TOPIC, d.storageKey()));
    assertArrayEquals(new long[] {0, 3, 0, 0, 0}, window(5), "cancelled and expired");
    testLog.apply(ack(TOPIC, "billing", a.storageKey()));
    assertArrayEquals(new long[] {0, 2, 0, 0, 0}, window(5), "acked by its only group");

    TopicDueCounts.Window w = counts(TOPIC).window(T0 / 1000, 1, 5, T0 / 1000 + 2);
    assertEquals(2, w.overdue(), "due before the third second");
    assertEquals(2, w.total());
    testLog.apply(deleteTopic(TOPIC, 1_000));
    assertArrayEquals(new long[] {0, 0, 0, 0, 0}, window(5), "deleted with its topic");
    assertEquals(1, counts("other").window(T0 / 1000, 1, 2, T0 / 1000).counts()[1]);
  }

  @Test
  void countsSurviveAReopenByReadingTheStoreAgain() throws Exception {
    testLog.apply(storeAt(T0, message(TOPIC, "a", T0 + 60_000), message(TOPIC, "b", T0 + 3_600_000)));
    testLog.reopen();
    TopicDueCounts.Window minutes = counts(TOPIC).window(T0 / 1000, 60, 2, T0 / 1000);
    assertArrayEquals(new long[] {0, 1}, minutes.counts());
    TopicDueCounts.Window hours = counts(TOPIC).window(T0 / 1000 / 3600 * 3600, 3600, 3, T0 / 1000);
    assertEquals(2, hours.counts()[0] + hours.counts()[1] + hours.counts()[2]);
  }

  @Test
  void aReplacedStoreIsCountedAgain() throws Exception {
    testLog.apply(storeAt(T0, message(TOPIC, "a", T0 + 1_000)));
    TopicDueCounts before = counts(TOPIC);
    testLog.stateMachine().reload(); // as after a snapshot install
    TopicDueCounts after = counts(TOPIC);
    assertNotSame(before, after, "counted afresh from the new store");
    assertArrayEquals(new long[] {0, 1}, window(2));
  }

  private long[] window(int seconds) throws Exception {
    return counts(TOPIC).window(T0 / 1000, 1, seconds, T0 / 1000).counts();
  }

  private TopicDueCounts counts(String topic) throws Exception {
    return testLog.stateMachine().dueCounts().of(topic, Runnable::run).get(10, TimeUnit.SECONDS);
  }

  private static StoredRef stored(CommandResult result) {
    return ((CommandResult.Stored) result).messages().get(0);
  }
}
