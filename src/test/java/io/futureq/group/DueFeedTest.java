package io.futureq.group;

import static io.futureq.log.Commands.ack;
import static io.futureq.log.Commands.createGroup;
import static io.futureq.log.Commands.message;
import static io.futureq.log.Commands.storeAt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.futureq.config.TopicSettings;
import io.futureq.log.CommandResult;
import io.futureq.log.TestLog;
import io.futureq.log.proto.DelayedDelivery;
import io.futureq.log.proto.LogCommand;
import io.futureq.log.proto.NackDelay;
import io.futureq.log.proto.NewMessage;
import io.futureq.testing.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The topic's due feed: one read per due chunk for all its groups, a lagging group served from its own
 * position without holding the others back, each group's marks respected, and what is removed or stored
 * while a read runs handled exactly once. Reads run on a storage executor the test drives ({@link HeldReads}), so
 * that each read is counted and can be held while something else happens. No time passes here: the feed's timers
 * run on {@code ManualTime} and its clock is the test's (they are {@code DueFeedTimersTest}'s subject), so no wake
 * starts a read the test did not ask for, and "nothing more" is asserted once the feed has handled what it was sent.
 */
class DueFeedTest {
  private static final ActorTestKit testKit = ActorTestKit.create(ManualTime.config());
  private static final long BUCKET_MS = 10;
  private static final String TOPIC = "orders";
  private static final Duration WAIT = Duration.ofSeconds(5);
  private static final TopicSettings SETTINGS = new TopicSettings(Duration.ofMillis(BUCKET_MS), 100,
      Duration.ofMillis(20), 100, Duration.ofMillis(100), Duration.ofSeconds(30));

  @TempDir
  Path dir;

  /**
   * At the last millisecond of a bucket: a message due now is then in a bucket that is read at once (a bucket is
   * read once it has nearly passed), as it is a few milliseconds later on real time; here no time passes.
   */
  private final ManualClock clock = new ManualClock(System.currentTimeMillis() / BUCKET_MS * BUCKET_MS + BUCKET_MS - 1);
  private TestLog testLog;
  private final HeldReads reads = new HeldReads();
  private ActorRef<DueFeed.Command> feed;

  @AfterAll
  static void shutdown() {
    testKit.shutdownTestKit();
  }

  @BeforeEach
  void open() {
    testLog = TestLog.open(dir, BUCKET_MS);
    feed = testKit.spawn(DueFeed.create(TOPIC, SETTINGS, testLog.store(), BUCKET_MS, reads,
        WakeTimer.of(testKit.system().scheduler(), testKit.system().executionContext(), clock), WAIT));
  }

  @AfterEach
  void close() {
    testKit.stop(feed);
    testLog.close();
  }

  @Test
  void everyGroupGetsEveryMessageInDueOrderFromOneReadOfTheChunk() {
    TestProbe<ConsumerGroup.Command> billing = join("billing");
    TestProbe<ConsumerGroup.Command> audit = join("audit");
    TestProbe<ConsumerGroup.Command> universal = join("");
    long now = clock.millis();
    publish(message(TOPIC, "third", now - 10), message(TOPIC, "first", now - 30), message(TOPIC, "second", now - 20));
    demand(billing);
    demand(audit);
    demand(universal);

    assertEquals(1, runReads(), "one read for the three groups");
    for (TestProbe<ConsumerGroup.Command> group : List.of(billing, audit, universal)) {
      assertEquals(List.of("first", "second", "third"), payloads(expectDue(group)));
    }
  }

  @Test
  void aGroupThatAsksForNothingKeepsOnlyItsPositionAndCatchesUpFromIt() {
    TestProbe<ConsumerGroup.Command> fast = join("fast");
    TestProbe<ConsumerGroup.Command> slow = join("slow");
    long now = clock.millis();
    publish(message(TOPIC, "m1", now - 20));
    demand(fast);
    runReads();
    assertEquals(List.of("m1"), payloads(expectDue(fast)));
    publish(message(TOPIC, "m2", now - 10));
    demand(fast);
    runReads();
    assertEquals(List.of("m2"), payloads(expectDue(fast)));
    slow.expectNoMessage(Duration.ZERO); // nothing is pushed at it, nor kept for it

    demand(slow);
    assertEquals(1, runReads(), "one read of its own, from its position to the head's");
    assertEquals(List.of("m1", "m2"), payloads(expectDue(slow)));

    // Back at the head: the next chunk is one read for both.
    publish(message(TOPIC, "m3", clock.millis()));
    demand(fast);
    demand(slow);
    assertEquals(1, runReads());
    assertEquals(List.of("m3"), payloads(expectDue(fast)));
    assertEquals(List.of("m3"), payloads(expectDue(slow)));
  }

  @Test
  void aGroupsShareLeavesOutWhatItAckedAndHoldsBackWhatItNackedWithADelay() {
    TestProbe<ConsumerGroup.Command> billing = join("billing");
    TestProbe<ConsumerGroup.Command> audit = join("audit");
    long now = clock.millis();
    List<DueMessage> stored = publish(message(TOPIC, "acked by billing", now - 20),
        message(TOPIC, "nacked by audit", now - 10));
    testLog.apply(ack(TOPIC, "billing", stored.get(0).storageKey()));
    long notBefore = now + 60_000;
    testLog.apply(LogCommand.newBuilder().setNackDelay(NackDelay.newBuilder().setTopic(TOPIC).setGroup("audit")
        .addDeliveries(DelayedDelivery.newBuilder().setStorageKey(ByteString.copyFrom(stored.get(1).storageKey()))
            .setNotBeforeMs(notBefore).setDeliveries(3))).build());
    demand(billing);
    demand(audit);
    runReads();

    assertEquals(List.of("nacked by audit"), payloads(expectDue(billing)));
    ConsumerGroup.Due forAudit = expectDue(audit);
    assertEquals(List.of("acked by billing"), payloads(forAudit));
    assertEquals(1, forAudit.delayed().size());
    assertEquals(notBefore, forAudit.delayed().get(0).mark().notBeforeMs());
    assertEquals(3, forAudit.delayed().get(0).mark().deliveries());
  }

  @Test
  void aMessageRemovedWhileAReadRunsIsLeftOutOfWhatTheReadReturns() {
    TestProbe<ConsumerGroup.Command> billing = join("billing");
    long now = clock.millis();
    List<DueMessage> stored = publish(message(TOPIC, "cancelled", now - 20), message(TOPIC, "kept", now - 10));
    demand(billing);
    handled();
    assertEquals(1, reads.queued());

    feed.tell(new DueFeed.Removed(List.of(stored.get(0).storageKey())));
    assertEquals(1, billing.expectMessageClass(ConsumerGroup.MessagesRemoved.class, WAIT).storageKeys().size());
    runReads(); // read from a snapshot that still holds the cancelled message

    assertEquals(List.of("kept"), payloads(expectDue(billing)));
  }

  @Test
  void aMessageStoredBehindTheHeadIsHandedOverOnceWhetherOrNotARunningReadSawIt() {
    TestProbe<ConsumerGroup.Command> billing = join("billing");
    long now = clock.millis();
    publish(message(TOPIC, "m1", now - 20));
    demand(billing);
    handled();
    assertEquals(1, reads.queued());
    // Stored (and announced) while the read waits: the read's snapshot will hold it too.
    publish(message(TOPIC, "m2", now - 30));
    runReads();
    assertEquals(List.of("m2", "m1"), payloads(expectDue(billing)));

    // Behind the head, stored after its read: no read will reach it, so it is handed over at once.
    publish(message(TOPIC, "m0", now - 40));
    ConsumerGroup.Due late = expectDue(billing);
    assertEquals(List.of("m0"), payloads(late));
    assertTrue(!late.answersDemand(), "handed over unasked");
    handled();
    billing.expectNoMessage(Duration.ZERO);
  }

  @Test
  void aGroupThatJoinsLaterReadsFromTheTopicsStartWhileTheOthersFollowTheHead() {
    TestProbe<ConsumerGroup.Command> first = join("first");
    long now = clock.millis();
    publish(message(TOPIC, "old", now - 20));
    demand(first);
    runReads();
    assertEquals(List.of("old"), payloads(expectDue(first)));

    TestProbe<ConsumerGroup.Command> second = join("second");
    demand(second);
    runReads();

    assertEquals(List.of("old"), payloads(expectDue(second)));
    first.expectNoMessage(Duration.ZERO);
  }

  private TestProbe<ConsumerGroup.Command> join(String group) {
    if (!group.isEmpty()) {
      testLog.apply(createGroup(TOPIC, group));
    }
    TestProbe<ConsumerGroup.Command> probe = testKit.createTestProbe();
    feed.tell(new DueFeed.Join(group, probe.ref(), null));
    return probe;
  }

  private void demand(TestProbe<ConsumerGroup.Command> group) {
    feed.tell(new DueFeed.Demand(group.ref()));
  }

  /** Stores the messages and announces them to the feed, as the topic does after commit. */
  private List<DueMessage> publish(NewMessage... messages) {
    CommandResult result = testLog.apply(storeAt(clock.millis(), messages));
    List<DueMessage> stored = new ArrayList<>();
    for (CommandResult.StoredRef ref : ((CommandResult.Stored) result).messages()) {
      stored.add(new DueMessage(ref.storageKey(), ref.message()));
    }
    feed.tell(new DueFeed.Stored(testLog.indexOf(result), stored));
    return stored;
  }

  private static ConsumerGroup.Due expectDue(TestProbe<ConsumerGroup.Command> group) {
    return group.expectMessageClass(ConsumerGroup.Due.class, WAIT);
  }

  private static List<String> payloads(ConsumerGroup.Due due) {
    return due.messages().stream().map(m -> m.message().getPayload().toStringUtf8()).toList();
  }

  /** Runs the reads the feed starts, and those it starts as they finish, until it starts none; how many ran. */
  private int runReads() {
    int ran = 0;
    for (int round = 1; round > 0; ran += round) {
      handled();
      round = reads.runQueued();
    }
    return ran;
  }

  /** Returns once the feed has handled what it was sent before: started its reads, handed over what it would. */
  private void handled() {
    TestProbe<ConsumerGroup.Command> probe = testKit.createTestProbe();
    feed.tell(new DueFeed.CatchUp(0, probe.ref()));
    probe.expectMessageClass(ConsumerGroup.CaughtUp.class, WAIT);
  }
}
