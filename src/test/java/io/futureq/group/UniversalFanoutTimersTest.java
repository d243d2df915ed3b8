package io.futureq.group;

import static io.futureq.log.Commands.message;
import static io.futureq.log.Commands.storeAt;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.futureq.config.GroupSettings;
import io.futureq.config.TopicSettings;
import io.futureq.log.CommandResult;
import io.futureq.log.EventLog;
import io.futureq.log.TestLog;
import io.futureq.log.proto.LogCommand;
import io.futureq.storage.StorageKeys;
import io.futureq.testing.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
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
 * The universal subscribers' timers on the test's time: {@code ManualTime} drives the fan-out's Pekko timers (in
 * flight, replica recheck) and its wake timer (a copy held until due), and the clock it reads moves by the same
 * amounts. The due feed is a probe: the test hands the fan-out its due messages as the feed would. Nothing happens
 * without time passing, so "nothing yet" is asserted once the fan-out has answered a later message.
 */
class UniversalFanoutTimersTest {
  private static final ActorTestKit testKit = ActorTestKit.create(ManualTime.config());
  private static final ManualTime time = ManualTime.get(testKit.system());
  private static final String TOPIC = "news";
  private static final Duration WAIT = Duration.ofSeconds(5);
  private static final TopicSettings TOPIC_SETTINGS = new TopicSettings(Duration.ofMillis(1), 100,
      Duration.ofMillis(20), 100, Duration.ofMillis(100), Duration.ofSeconds(30));
  private static final Duration IN_FLIGHT_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration ONE_MS = Duration.ofMillis(1);

  @TempDir
  Path dir;

  private final ManualClock clock = new ManualClock();
  private final TestProbe<ConsumerGroup.Acked> ackSink = testKit.createTestProbe();
  private TestLog testLog;
  private SwitchedLog log;
  private ActorRef<ConsumerGroup.Command> fanout;

  @AfterAll
  static void shutdown() {
    testKit.shutdownTestKit();
  }

  @BeforeEach
  void open() {
    testLog = TestLog.open(dir, 1);
    log = new SwitchedLog(testLog.log());
    TestProbe<DueFeed.Command> feed = testKit.createTestProbe();
    GroupContext context = new GroupContext(TOPIC, "", new GroupSettings(IN_FLIGHT_TIMEOUT, 0, Duration.ofMinutes(1)),
        TOPIC_SETTINGS, log, 10,
        WakeTimer.of(testKit.system().scheduler(), testKit.system().executionContext(), clock), ackSink.ref(),
        feed.ref());
    fanout = testKit.spawn(UniversalFanout.create(context, StorageKeys.message(StorageKeys.topicHash(TOPIC), 0, 0)));
  }

  @AfterEach
  void close() {
    testKit.stop(fanout);
    testLog.close();
  }

  @Test
  void aMessageHandedOverBeforeItsDueTimeIsCopiedToEverySubscriberAtItsDueTimeAndNotBefore() {
    TestProbe<SubscriberSession.Command> a = subscriber(10);
    TestProbe<SubscriberSession.Command> b = subscriber(10);
    handOver("later", clock.millis() + 500);

    timePasses(Duration.ofMillis(499));
    a.expectNoMessage(Duration.ZERO);
    b.expectNoMessage(Duration.ZERO);
    timePasses(ONE_MS);

    assertEquals("later", payload(delivery(a)));
    assertEquals("later", payload(delivery(b)));
  }

  @Test
  void aCopyNotAckedWithinTheInFlightTimeoutGivesItsCreditBackAndIsNotDeliveredAgain() {
    TestProbe<SubscriberSession.Command> a = subscriber(1);
    handOver("m1", clock.millis());
    handOver("m2", clock.millis());
    assertEquals("m1", payload(delivery(a)));

    timePasses(IN_FLIGHT_TIMEOUT.minus(ONE_MS));
    a.expectNoMessage(Duration.ZERO);
    timePasses(ONE_MS);

    GroupDelivery next = delivery(a);
    assertEquals("m2", payload(next), "m1's credit came back; m1 itself is not redelivered");
    timePasses(IN_FLIGHT_TIMEOUT);
    a.expectNoMessage(Duration.ZERO);
    assertEquals(0, stats().inFlight(), "the timed-out copies are forgotten");
    ackSink.expectNoMessage(Duration.ZERO);
  }

  @Test
  void aReplicaOutOfTouchDeliversNothingAndResumesWithinTheRecheckIntervalOnceCurrentAgain() {
    log.current = false;
    TestProbe<SubscriberSession.Command> a = subscriber(10);
    handOver("m1", clock.millis());
    a.expectNoMessage(Duration.ZERO);

    log.current = true;
    timePasses(ConsumerGroup.REPLICA_RECHECK.minus(ONE_MS));
    a.expectNoMessage(Duration.ZERO);
    timePasses(ONE_MS);

    assertEquals("m1", payload(delivery(a)));
  }

  private TestProbe<SubscriberSession.Command> subscriber(int credit) {
    TestProbe<SubscriberSession.Command> probe = testKit.createTestProbe();
    fanout.tell(new ConsumerGroup.AddConsumer(probe.ref(), credit, 0, 1));
    stats();
    return probe;
  }

  /** Stores a message due at {@code dueMs} and hands it to the fan-out, as its due feed does once it is near due. */
  private void handOver(String payload, long dueMs) {
    CommandResult result = testLog.apply(storeAt(clock.millis(), message(TOPIC, payload, dueMs)));
    List<DueMessage> stored = new ArrayList<>();
    for (CommandResult.StoredRef ref : ((CommandResult.Stored) result).messages()) {
      stored.add(new DueMessage(ref.storageKey(), ref.message()));
    }
    fanout.tell(new ConsumerGroup.Due(stored, List.of(), true));
    stats();
  }

  /**
   * Answered once the fan-out has handled what it was sent before, and so sent the copies it would: it reads the
   * clock as it handles a message, so time must not pass before it has.
   */
  private ConsumerGroup.Stats stats() {
    TestProbe<ConsumerGroup.Stats> probe = testKit.createTestProbe();
    fanout.tell(new ConsumerGroup.GetStats(probe.ref()));
    return probe.expectMessageClass(ConsumerGroup.Stats.class, WAIT);
  }

  private void timePasses(Duration amount) {
    clock.advance(amount);
    time.timePasses(amount);
    stats();
  }

  private static GroupDelivery delivery(TestProbe<SubscriberSession.Command> subscriber) {
    List<GroupDelivery> deliveries = subscriber.expectMessageClass(SubscriberSession.Deliver.class, WAIT)
        .deliveries();
    assertEquals(1, deliveries.size(), String.valueOf(deliveries));
    return deliveries.get(0);
  }

  private static String payload(GroupDelivery delivery) {
    return delivery.message().message().getPayload().toStringUtf8();
  }

  /** The log, whose replica the test can put out of touch with its Raft group ({@link EventLog#current()}). */
  private static final class SwitchedLog implements EventLog {
    private final EventLog log;
    volatile boolean current = true;

    SwitchedLog(EventLog log) {
      this.log = log;
    }

    @Override
    public boolean current() {
      return current;
    }

    @Override
    public CompletionStage<CommandResult> append(LogCommand command) {
      return log.append(command);
    }

    @Override
    public long appliedIndex() {
      return log.appliedIndex();
    }

    @Override
    public CompletionStage<Long> whenApplied(long index) {
      return log.whenApplied(index);
    }

    @Override
    public void close() {}
  }
}
