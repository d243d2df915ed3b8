package io.futureq.group;

import static io.futureq.log.Commands.ack;
import static io.futureq.log.Commands.createGroup;
import static io.futureq.log.Commands.message;
import static io.futureq.log.Commands.store;
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
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
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
 * while a read runs handled exactly once. Reads run on a storage executor the test drives, so that each
 * read is counted and can be held while something else happens.
 */
class DueFeedTest {
  private static final ActorTestKit testKit = ActorTestKit.create();
  private static final long BUCKET_MS = 10;
  private static final String TOPIC = "orders";
  private static final Duration WAIT = Duration.ofSeconds(5);
  private static final TopicSettings SETTINGS = new TopicSettings(Duration.ofMillis(BUCKET_MS), 100,
      Duration.ofMillis(20), 100, Duration.ofMillis(100), Duration.ofSeconds(30));

  @TempDir
  Path dir;

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
        WakeTimer.of(testKit.system().scheduler(), testKit.system().executionContext(),
            InstantSource.system()), WAIT));
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
    long now = System.currentTimeMillis();
    publish(message(TOPIC, "third", now - 10), message(TOPIC, "first", now - 30), message(TOPIC, "second", now - 20));
    demand(billing);
    demand(audit);
    demand(universal);

    assertEquals(1, reads.runAll(), "one read for the three groups");
    for (TestProbe<ConsumerGroup.Command> group : List.of(billing, audit, universal)) {
      assertEquals(List.of("first", "second", "third"), payloads(expectDue(group)));
    }
  }

  @Test
  void aGroupThatAsksForNothingKeepsOnlyItsPositionAndCatchesUpFromIt() {
    TestProbe<ConsumerGroup.Command> fast = join("fast");
    TestProbe<ConsumerGroup.Command> slow = join("slow");
    long now = System.currentTimeMillis();
    publish(message(TOPIC, "m1", now - 20));
    demand(fast);
    reads.runAll();
    assertEquals(List.of("m1"), payloads(expectDue(fast)));
    publish(message(TOPIC, "m2", now - 10));
    demand(fast);
    reads.runAll();
    assertEquals(List.of("m2"), payloads(expectDue(fast)));
    slow.expectNoMessage(Duration.ofMillis(100)); // nothing is pushed at it, nor kept for it

    demand(slow);
    assertEquals(1, reads.runAll(), "one read of its own, from its position to the head's");
    assertEquals(List.of("m1", "m2"), payloads(expectDue(slow)));

    // Back at the head: the next chunk is one read for both.
    publish(message(TOPIC, "m3", System.currentTimeMillis()));
    demand(fast);
    demand(slow);
    assertEquals(1, reads.runAll());
    assertEquals(List.of("m3"), payloads(expectDue(fast)));
    assertEquals(List.of("m3"), payloads(expectDue(slow)));
  }

  @Test
  void aGroupsShareLeavesOutWhatItAckedAndHoldsBackWhatItNackedWithADelay() {
    TestProbe<ConsumerGroup.Command> billing = join("billing");
    TestProbe<ConsumerGroup.Command> audit = join("audit");
    long now = System.currentTimeMillis();
    List<DueMessage> stored = publish(message(TOPIC, "acked by billing", now - 20),
        message(TOPIC, "nacked by audit", now - 10));
    testLog.apply(ack(TOPIC, "billing", stored.get(0).storageKey()));
    long notBefore = now + 60_000;
    testLog.apply(LogCommand.newBuilder().setNackDelay(NackDelay.newBuilder().setTopic(TOPIC).setGroup("audit")
        .addDeliveries(DelayedDelivery.newBuilder().setStorageKey(ByteString.copyFrom(stored.get(1).storageKey()))
            .setNotBeforeMs(notBefore).setDeliveries(3))).build());
    demand(billing);
    demand(audit);
    reads.runAll();

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
    long now = System.currentTimeMillis();
    List<DueMessage> stored = publish(message(TOPIC, "cancelled", now - 20), message(TOPIC, "kept", now - 10));
    demand(billing);
    reads.awaitQueued(1);

    feed.tell(new DueFeed.Removed(List.of(stored.get(0).storageKey())));
    assertEquals(1, billing.expectMessageClass(ConsumerGroup.MessagesRemoved.class, WAIT).storageKeys().size());
    reads.runAll(); // read from a snapshot that still holds the cancelled message

    assertEquals(List.of("kept"), payloads(expectDue(billing)));
  }

  @Test
  void aMessageStoredBehindTheHeadIsHandedOverOnceWhetherOrNotARunningReadSawIt() {
    TestProbe<ConsumerGroup.Command> billing = join("billing");
    long now = System.currentTimeMillis();
    publish(message(TOPIC, "m1", now - 20));
    demand(billing);
    reads.awaitQueued(1);
    // Stored (and announced) while the read waits: the read's snapshot will hold it too.
    publish(message(TOPIC, "m2", now - 30));
    reads.runAll();
    assertEquals(List.of("m2", "m1"), payloads(expectDue(billing)));

    // Behind the head, stored after its read: no read will reach it, so it is handed over at once.
    publish(message(TOPIC, "m0", now - 40));
    ConsumerGroup.Due late = expectDue(billing);
    assertEquals(List.of("m0"), payloads(late));
    assertTrue(!late.answersDemand(), "handed over unasked");
    billing.expectNoMessage(Duration.ofMillis(200));
  }

  @Test
  void aGroupThatJoinsLaterReadsFromTheTopicsStartWhileTheOthersFollowTheHead() {
    TestProbe<ConsumerGroup.Command> first = join("first");
    long now = System.currentTimeMillis();
    publish(message(TOPIC, "old", now - 20));
    demand(first);
    reads.runAll();
    assertEquals(List.of("old"), payloads(expectDue(first)));

    TestProbe<ConsumerGroup.Command> second = join("second");
    demand(second);
    reads.runAll();

    assertEquals(List.of("old"), payloads(expectDue(second)));
    first.expectNoMessage(Duration.ofMillis(100));
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
    CommandResult result = testLog.apply(store(messages));
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

  /** A storage executor whose tasks (the feed's reads) wait until the test runs them. */
  private static final class HeldReads implements Executor {
    private final ConcurrentLinkedQueue<Runnable> queued = new ConcurrentLinkedQueue<>();

    @Override
    public void execute(Runnable task) {
      queued.add(task);
    }

    void awaitQueued(int n) {
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (queued.size() < n) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("expected " + n + " reads, " + queued.size() + " started");
        }
        Thread.onSpinWait();
      }
    }

    /** Runs the reads started so far, waiting a little for the first; returns how many ran. */
    int runAll() {
      awaitQueued(1);
      // Reads the feed starts once the first is answered are part of this round too (a laggard catching up).
      int ran = 0;
      long quietUntil = System.nanoTime() + Duration.ofMillis(200).toNanos();
      while (System.nanoTime() < quietUntil) {
        Runnable task = queued.poll();
        if (task == null) {
          Thread.onSpinWait();
          continue;
        }
        task.run();
        ran++;
        quietUntil = System.nanoTime() + Duration.ofMillis(200).toNanos();
      }
      return ran;
    }
  }
}
