package io.futureq.group;

import static io.futureq.log.Commands.message;
import static io.futureq.log.Commands.store;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.config.GroupSettings;
import io.futureq.config.TopicSettings;
import io.futureq.log.CommandResult;
import io.futureq.log.TestLog;
import io.futureq.log.proto.NewMessage;
import io.futureq.storage.StorageKeys;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UniversalFanoutTest {
  private static final ActorTestKit testKit = ActorTestKit.create();
  private static final long BUCKET_MS = 10;
  private static final String TOPIC = "news";
  private static final Duration WAIT = Duration.ofSeconds(5);
  private static final TopicSettings TOPIC_SETTINGS = new TopicSettings(Duration.ofMillis(BUCKET_MS), 100,
      Duration.ofMillis(20), 100, Duration.ofMillis(100), Duration.ofSeconds(30));

  @TempDir
  Path dir;

  private TestLog testLog;
  private ExecutorService storageExecutor;
  private final TestProbe<ConsumerGroup.Acked> ackSink = testKit.createTestProbe();
  /** The topic's due feed, which the fan-out joins. */
  private ActorRef<DueFeed.Command> feed;

  @AfterAll
  static void shutdown() {
    testKit.shutdownTestKit();
  }

  @BeforeEach
  void open() {
    testLog = TestLog.open(dir, BUCKET_MS);
    storageExecutor = Executors.newSingleThreadExecutor();
  }

  @AfterEach
  void close() throws InterruptedException {
    storageExecutor.shutdown();
    assertTrue(storageExecutor.awaitTermination(10, TimeUnit.SECONDS));
    testLog.close();
  }

  @Test
  void everySubscriberWithCreditGetsACopyAndAnAckIsReported() {
    ActorRef<ConsumerGroup.Command> fanout = start(new GroupSettings(Duration.ofSeconds(30), 0, Duration.ofMinutes(1)));
    TestProbe<SubscriberSession.Command> a = subscriber(fanout, 10);
    TestProbe<SubscriberSession.Command> b = subscriber(fanout, 10);
    List<DueMessage> published = publish(fanout, "m1", "m2");

    List<GroupDelivery> toA = deliveries(a, 2);
    List<GroupDelivery> toB = deliveries(b, 2);
    assertEquals(List.of(1L, 2L), toA.stream().map(GroupDelivery::tag).toList());
    assertEquals(published.get(0).id(), toB.get(0).message().id());

    fanout.tell(new ConsumerGroup.AckDeliveries(a.ref(), TagRanges.of(1, 1)));
    ConsumerGroup.Acked acked = ackSink.expectMessageClass(ConsumerGroup.Acked.class, WAIT);
    assertEquals("", acked.group());
    assertEquals(1, acked.storageKeys().size());
  }

  /** What a copy that timed out gives back is {@code UniversalFanoutTimersTest}'s. */
  @Test
  void aNackedCopyIsNotDeliveredAgainButItsCreditReturns() {
    ActorRef<ConsumerGroup.Command> fanout = start(new GroupSettings(Duration.ofSeconds(30), 0, Duration.ofMinutes(1)));
    TestProbe<SubscriberSession.Command> a = subscriber(fanout, 1);
    publish(fanout, "m1", "m2", "m3");

    assertEquals("m1", payload(deliveries(a, 1).get(0)));
    fanout.tell(new ConsumerGroup.NackDeliveries(a.ref(), TagRanges.of(1, 1), Duration.ZERO));
    assertEquals("m2", payload(deliveries(a, 1).get(0)), "the nack gave the credit back, m1 is not redelivered");
    fanout.tell(new ConsumerGroup.AckDeliveries(a.ref(), TagRanges.of(2, 2)));
    assertEquals("m3", payload(deliveries(a, 1).get(0)), "the ack gave the credit back");
    assertEquals(1, ackSink.expectMessageClass(ConsumerGroup.Acked.class, WAIT).storageKeys().size(), "m2's ack");
  }

  @Test
  void itStopsWhenItsLastSubscriberLeaves() {
    ActorRef<ConsumerGroup.Command> fanout = start(new GroupSettings(Duration.ofSeconds(30), 0, Duration.ofMinutes(1)));
    TestProbe<SubscriberSession.Command> a = subscriber(fanout, 1);
    TestProbe<Object> watcher = testKit.createTestProbe();

    a.stop();

    watcher.expectTerminated(fanout, WAIT);
  }

  private ActorRef<ConsumerGroup.Command> start(GroupSettings settings) {
    WakeTimer timer = WakeTimer.of(testKit.system().scheduler(), testKit.system().executionContext(),
            InstantSource.system());
    feed = testKit.spawn(DueFeed.create(TOPIC, TOPIC_SETTINGS, testLog.store(), BUCKET_MS, storageExecutor, timer,
        WAIT));
    GroupContext context = new GroupContext(TOPIC, "", settings, TOPIC_SETTINGS, testLog.log(), 10, timer,
        ackSink.ref(), feed);
    byte[] start = StorageKeys.message(StorageKeys.topicHash(TOPIC), 0, 0);
    return testKit.spawn(UniversalFanout.create(context, start));
  }

  private static TestProbe<SubscriberSession.Command> subscriber(ActorRef<ConsumerGroup.Command> fanout, int credit) {
    TestProbe<SubscriberSession.Command> probe = testKit.createTestProbe();
    fanout.tell(new ConsumerGroup.AddConsumer(probe.ref(), credit, 0, 1));
    return probe;
  }

  private List<DueMessage> publish(ActorRef<ConsumerGroup.Command> fanout, String... payloads) {
    long now = System.currentTimeMillis();
    List<NewMessage> messages = new ArrayList<>();
    for (String payload : payloads) {
      messages.add(message(TOPIC, payload, now));
    }
    CommandResult result = testLog.apply(store(messages.toArray(NewMessage[]::new)));
    List<DueMessage> stored = new ArrayList<>();
    for (CommandResult.StoredRef ref : ((CommandResult.Stored) result).messages()) {
      stored.add(new DueMessage(ref.storageKey(), ref.message()));
    }
    feed.tell(new DueFeed.Stored(testLog.indexOf(result), stored));
    return stored;
  }

  private static List<GroupDelivery> deliveries(TestProbe<SubscriberSession.Command> probe, int n) {
    List<GroupDelivery> out = new ArrayList<>();
    while (out.size() < n) {
      out.addAll(probe.expectMessageClass(SubscriberSession.Deliver.class, WAIT).deliveries());
    }
    assertEquals(n, out.size());
    return out;
  }

  private static String payload(GroupDelivery d) {
    return d.message().message().getPayload().toStringUtf8();
  }
}
