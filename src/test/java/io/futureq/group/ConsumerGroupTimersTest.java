package io.futureq.group;

import static io.futureq.log.Commands.createGroup;
import static io.futureq.log.Commands.message;
import static io.futureq.log.Commands.store;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.futureq.config.GroupSettings;
import io.futureq.config.TopicSettings;
import io.futureq.log.CommandResult;
import io.futureq.log.TestLog;
import io.futureq.testing.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
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
 * A consumer group's timers on the test's time: {@code ManualTime} drives its Pekko timers and its wake timer, and
 * the clock it reads (its wake timer's) moves by the same amounts, so a 30 s in-flight timeout or a 10 min requeue
 * delay is tested to the millisecond without waiting for it. The due feed is a probe: the test hands the group its
 * due messages as the feed would.
 */
class ConsumerGroupTimersTest {
  private static final ActorTestKit testKit = ActorTestKit.create(ManualTime.config());
  private static final ManualTime time = ManualTime.get(testKit.system());
  private static final String TOPIC = "orders";
  private static final Duration WAIT = Duration.ofSeconds(5);
  /** Long enough that a delivery the group should not make would have shown. */
  private static final Duration NOTHING_FOR = Duration.ofMillis(200);
  private static final TopicSettings TOPIC_SETTINGS = new TopicSettings(Duration.ofMillis(10), 100,
      Duration.ofMillis(20), 100, Duration.ofMillis(100), Duration.ofSeconds(30));
  private static final Duration IN_FLIGHT_TIMEOUT = Duration.ofSeconds(30);

  @TempDir
  Path dir;

  private final ManualClock clock = new ManualClock();
  private TestLog testLog;
  private ActorRef<ConsumerGroup.Command> group;

  @AfterAll
  static void shutdown() {
    testKit.shutdownTestKit();
  }

  @BeforeEach
  void open() {
    testLog = TestLog.open(dir, 10);
    testLog.apply(createGroup(TOPIC, "billing"));
    TestProbe<DueFeed.Command> feed = testKit.createTestProbe();
    TestProbe<ConsumerGroup.Acked> ackSink = testKit.createTestProbe();
    GroupContext context = new GroupContext(TOPIC, "billing",
        new GroupSettings(IN_FLIGHT_TIMEOUT, 0, Duration.ofHours(1)), TOPIC_SETTINGS, testLog.log(), 2,
        WakeTimer.of(testKit.system().scheduler(), testKit.system().executionContext(), clock), ackSink.ref(),
        feed.ref());
    group = testKit.spawn(ConsumerGroup.create(context, null));
  }

  @AfterEach
  void close() {
    testKit.stop(group);
    testLog.close();
  }

  @Test
  void anUnackedDeliveryIsRedeliveredWhenItsInFlightTimeoutHasPassedAndNotBefore() {
    TestProbe<SubscriberSession.Command> consumer = consumer();
    handOver("m1", clock.millis());
    GroupDelivery first = delivery(consumer);

    timePasses(IN_FLIGHT_TIMEOUT.minusMillis(1));
    consumer.expectNoMessage(NOTHING_FOR);
    timePasses(Duration.ofMillis(1));

    GroupDelivery again = delivery(consumer);
    assertEquals(first.message().id(), again.message().id());
    assertEquals(2, again.attempt());
  }

  @Test
  void aNackWithADelayRedeliversWhenTheDelayHasPassedAndNotBefore() {
    TestProbe<SubscriberSession.Command> consumer = consumer();
    handOver("m1", clock.millis());
    GroupDelivery first = delivery(consumer);

    group.tell(new ConsumerGroup.NackDeliveries(consumer.ref(), TagRanges.of(first.tag(), first.tag()),
        Duration.ofMinutes(10)));
    handled();
    timePasses(Duration.ofMinutes(10).minusMillis(1));
    consumer.expectNoMessage(NOTHING_FOR);
    timePasses(Duration.ofMillis(1));

    GroupDelivery again = delivery(consumer);
    assertEquals(first.message().id(), again.message().id());
    assertEquals(2, again.attempt());
  }

  @Test
  void aMessageHandedOverBeforeItsDueTimeIsHeldUntilThen() {
    TestProbe<SubscriberSession.Command> consumer = consumer();
    handOver("later", clock.millis() + 500);

    timePasses(Duration.ofMillis(499));
    consumer.expectNoMessage(NOTHING_FOR);
    timePasses(Duration.ofMillis(1));

    assertEquals("later", delivery(consumer).message().message().getPayload().toStringUtf8());
  }

  private TestProbe<SubscriberSession.Command> consumer() {
    TestProbe<SubscriberSession.Command> probe = testKit.createTestProbe();
    group.tell(new ConsumerGroup.AddConsumer(probe.ref(), 10, 0, 1));
    return probe;
  }

  /** Stores a message due at {@code dueMs} and hands it to the group, as its due feed does once it is near due. */
  private void handOver(String payload, long dueMs) {
    CommandResult.StoredRef ref = ((CommandResult.Stored) testLog.apply(store(message(TOPIC, payload, dueMs))))
        .messages().get(0);
    group.tell(new ConsumerGroup.Due(List.of(new DueMessage(ref.storageKey(), ref.message())), List.of(), true));
    handled();
  }

  /**
   * Returns once the group has handled what it was sent before: it reads the clock as it handles a message, so
   * time must not pass before it has.
   */
  private void handled() {
    TestProbe<ConsumerGroup.Stats> probe = testKit.createTestProbe();
    group.tell(new ConsumerGroup.GetStats(probe.ref()));
    probe.expectMessageClass(ConsumerGroup.Stats.class, WAIT);
  }

  private static GroupDelivery delivery(TestProbe<SubscriberSession.Command> consumer) {
    List<GroupDelivery> deliveries = consumer.expectMessageClass(SubscriberSession.Deliver.class, WAIT).deliveries();
    assertEquals(1, deliveries.size(), String.valueOf(deliveries));
    return deliveries.get(0);
  }

  private void timePasses(Duration amount) {
    clock.advance(amount);
    time.timePasses(amount);
  }
}
