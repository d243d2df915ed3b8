package io.futureq.group;

import static io.futureq.log.Commands.createGroup;
import static io.futureq.log.Commands.message;
import static io.futureq.log.Commands.storeAt;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.futureq.config.TopicSettings;
import io.futureq.log.CommandResult;
import io.futureq.log.TestLog;
import io.futureq.storage.OrderedStore;
import io.futureq.storage.StorageException;
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
 * The due feed's timers on the test's time: {@code ManualTime} drives its wake timer, and the clock it reads moves
 * by the same amounts, so when it reads (a read-ahead of {@link DueFeed#READ_AHEAD_MS} before a message is due, a
 * retry after a failed read) is asserted to the millisecond. Reads wait in {@link HeldReads} until the test runs
 * them, so "no read yet" is a count, not a wait. Buckets are 1 ms, as on a node by default.
 */
class DueFeedTimersTest {
  private static final ActorTestKit testKit = ActorTestKit.create(ManualTime.config());
  private static final ManualTime time = ManualTime.get(testKit.system());
  private static final long BUCKET_MS = 1;
  private static final String TOPIC = "orders";
  private static final Duration WAIT = Duration.ofSeconds(5);
  private static final Duration RETRY_BACKOFF = Duration.ofMillis(100);
  private static final TopicSettings SETTINGS = new TopicSettings(Duration.ofMillis(BUCKET_MS), 100,
      Duration.ofMillis(20), 100, RETRY_BACKOFF, Duration.ofSeconds(30));
  private static final Duration READ_AHEAD = Duration.ofMillis(DueFeed.READ_AHEAD_MS);
  private static final Duration ONE_MS = Duration.ofMillis(1);

  @TempDir
  Path dir;

  private final ManualClock clock = new ManualClock();
  private final HeldReads reads = new HeldReads();
  private TestLog testLog;
  private FailingViews store;
  private ActorRef<DueFeed.Command> feed;

  @AfterAll
  static void shutdown() {
    testKit.shutdownTestKit();
  }

  @BeforeEach
  void open() {
    testLog = TestLog.open(dir, BUCKET_MS);
    store = new FailingViews(testLog.store());
    feed = testKit.spawn(DueFeed.create(TOPIC, SETTINGS, store, BUCKET_MS, reads,
        WakeTimer.of(testKit.system().scheduler(), testKit.system().executionContext(), clock), WAIT));
  }

  @AfterEach
  void close() {
    testKit.stop(feed);
    testLog.close();
  }

  @Test
  void aMessageStoredForLaterIsReadAndHandedOverReadAheadOfItsDueTimeAndNotBefore() {
    TestProbe<ConsumerGroup.Command> billing = join("billing");
    demand(billing);
    assertEquals(1, runReads(), "the first read finds nothing due");
    long dueMs = clock.millis() + 1000;
    publish("later", dueMs);

    timePasses(Duration.ofMillis(1000).minus(READ_AHEAD).minus(ONE_MS));
    assertEquals(0, reads.queued(), "no read before the read-ahead");
    billing.expectNoMessage(Duration.ZERO);
    timePasses(ONE_MS);

    assertEquals(1, runReads());
    assertEquals(List.of("later"), payloads(expectDue(billing)));
  }

  @Test
  void aReadArmsTheWakeForTheNextMessageDueAfterWhatItRead() {
    TestProbe<ConsumerGroup.Command> billing = join("billing");
    long start = clock.millis();
    publish("first", start + 1000);
    publish("second", start + 5000);
    demand(billing);
    assertEquals(1, runReads(), "nothing is due yet; the read finds when the first is");
    timePasses(Duration.ofMillis(1000).minus(READ_AHEAD));
    runReads();
    assertEquals(List.of("first"), payloads(expectDue(billing)));
    demand(billing); // as the group does once it has taken the first

    timePasses(Duration.ofMillis(4000).minus(ONE_MS));
    assertEquals(0, reads.queued(), "no read before the second is nearly due");
    timePasses(ONE_MS);

    assertEquals(1, runReads());
    assertEquals(List.of("second"), payloads(expectDue(billing)));
  }

  @Test
  void aFailedReadIsRetriedOnceTheRetryBackoffHasPassedLessTheReadAhead() {
    TestProbe<ConsumerGroup.Command> billing = join("billing");
    publish("m1", clock.millis());
    store.failNextView();
    demand(billing);
    assertEquals(1, runReads(), "the read that fails");
    billing.expectNoMessage(Duration.ZERO);

    timePasses(RETRY_BACKOFF.minus(READ_AHEAD).minus(ONE_MS));
    assertEquals(0, reads.queued(), "no retry before the backoff");
    timePasses(ONE_MS);

    assertEquals(1, runReads());
    assertEquals(List.of("m1"), payloads(expectDue(billing)));
  }

  @Test
  void aLaggingGroupWhoseOwnReadFailedIsReadForAgainOnceTheRetryBackoffHasPassed() {
    TestProbe<ConsumerGroup.Command> fast = join("fast");
    TestProbe<ConsumerGroup.Command> slow = join("slow");
    publish("m1", clock.millis());
    demand(fast);
    runReads();
    assertEquals(List.of("m1"), payloads(expectDue(fast)));
    store.failNextView();
    demand(slow);
    assertEquals(1, runReads(), "the slow group's own read, which fails");

    timePasses(RETRY_BACKOFF.minus(ONE_MS));
    assertEquals(0, reads.queued(), "no retry before the backoff");
    timePasses(ONE_MS);

    assertEquals(1, runReads());
    assertEquals(List.of("m1"), payloads(expectDue(slow)));
  }

  private TestProbe<ConsumerGroup.Command> join(String group) {
    testLog.apply(createGroup(TOPIC, group));
    TestProbe<ConsumerGroup.Command> probe = testKit.createTestProbe();
    feed.tell(new DueFeed.Join(group, probe.ref(), null));
    return probe;
  }

  private void demand(TestProbe<ConsumerGroup.Command> group) {
    feed.tell(new DueFeed.Demand(group.ref()));
    handled();
  }

  /** Stores a message and announces it, as the topic does after commit; the feed takes it in at this time. */
  private void publish(String payload, long dueMs) {
    CommandResult result = testLog.apply(storeAt(clock.millis(), message(TOPIC, payload, dueMs)));
    List<DueMessage> stored = new ArrayList<>();
    for (CommandResult.StoredRef ref : ((CommandResult.Stored) result).messages()) {
      stored.add(new DueMessage(ref.storageKey(), ref.message()));
    }
    feed.tell(new DueFeed.Stored(testLog.indexOf(result), stored));
    handled();
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

  /**
   * Returns once the feed has handled what it was sent before, and so started the reads and handed over what it
   * would: it reads the clock as it handles a message, so time must not pass before it has.
   */
  private void handled() {
    TestProbe<ConsumerGroup.Command> probe = testKit.createTestProbe();
    feed.tell(new DueFeed.CatchUp(0, probe.ref()));
    probe.expectMessageClass(ConsumerGroup.CaughtUp.class, WAIT);
  }

  private void timePasses(Duration amount) {
    clock.advance(amount);
    time.timePasses(amount);
    handled();
  }

  private static ConsumerGroup.Due expectDue(TestProbe<ConsumerGroup.Command> group) {
    return group.expectMessageClass(ConsumerGroup.Due.class, WAIT);
  }

  private static List<String> payloads(ConsumerGroup.Due due) {
    return due.messages().stream().map(m -> m.message().getPayload().toStringUtf8()).toList();
  }

  /** The topic's store, whose next snapshot for a read can be made to fail as a disk error fails it. */
  private static final class FailingViews implements OrderedStore {
    private final OrderedStore delegate;
    private volatile boolean failNext;

    FailingViews(OrderedStore delegate) {
      this.delegate = delegate;
    }

    void failNextView() {
      failNext = true;
    }

    @Override
    public View view() {
      if (failNext) {
        failNext = false;
        throw new StorageException("reading the topic's messages failed: I/O error (test)", null);
      }
      return delegate.view();
    }

    @Override
    public Batch newBatch() {
      return delegate.newBatch();
    }

    @Override
    public void commit(Batch batch, boolean sync) {
      delegate.commit(batch, sync);
    }

    @Override
    public byte[] get(Space space, byte[] key) {
      return delegate.get(space, key);
    }

    @Override
    public void checkpoint(Path dir) {
      delegate.checkpoint(dir);
    }

    @Override
    public void restoreFrom(Path dir) {
      delegate.restoreFrom(dir);
    }

    @Override
    public void close() {
      delegate.close();
    }
  }
}
