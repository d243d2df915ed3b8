package io.futureq.group;

import static io.futureq.log.Commands.cancelByStorageKey;
import static io.futureq.log.Commands.createGroup;
import static io.futureq.log.Commands.message;
import static io.futureq.log.Commands.store;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.config.GroupSettings;
import io.futureq.config.TopicSettings;
import io.futureq.log.CommandResult;
import io.futureq.log.EventLog;
import io.futureq.log.Headers;
import io.futureq.log.TestLog;
import io.futureq.log.proto.LogCommand;
import io.futureq.log.proto.NewMessage;
import io.futureq.log.proto.StoredMessage;
import io.futureq.storage.MessageIds;
import io.futureq.storage.StorageKeys;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConsumerGroupTest {
  private static final ActorTestKit testKit = ActorTestKit.create();
  private static final long BUCKET_MS = 10;
  private static final String TOPIC = "orders";
  private static final int MAX_CONSUMERS = 2;
  private static final Duration WAIT = Duration.ofSeconds(5);
  private static final TopicSettings TOPIC_SETTINGS = new TopicSettings(Duration.ofMillis(BUCKET_MS), 100,
      Duration.ofMillis(20), 100, Duration.ofMillis(100), Duration.ofSeconds(30));
  private static final GroupSettings PATIENT = new GroupSettings(Duration.ofSeconds(30), 0, Duration.ofMinutes(1));
  private static final GroupSettings HASTY = new GroupSettings(Duration.ofMillis(300), 0, Duration.ofMinutes(1));

  @TempDir
  Path dir;

  private TestLog testLog;
  private final PreciseWakeTimer preciseTimer = new PreciseWakeTimer();
  private ExecutorService storageExecutor;
  private final List<ActorRef<ConsumerGroup.Command>> groups = new ArrayList<>();
  private final TestProbe<ConsumerGroup.Acked> ackSink = testKit.createTestProbe();
  /** Each group's due feed, as its topic would spawn it; see {@link #startGroup}. */
  private final Map<ActorRef<ConsumerGroup.Command>, ActorRef<DueFeed.Command>> feeds = new HashMap<>();
  /** The replica's recovery count as the groups see it; see {@link #replicaRecovers}. */
  private final AtomicLong recoveries = new AtomicLong();

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
    groups.forEach(testKit::stop);
    feeds.values().forEach(testKit::stop);
    storageExecutor.shutdown();
    preciseTimer.close();
    assertTrue(storageExecutor.awaitTermination(10, TimeUnit.SECONDS));
    testLog.close();
  }

  @Test
  void deliversRoundRobinBetweenConsumers() {
    ActorRef<ConsumerGroup.Command> group = startGroup("billing", PATIENT);
    TestProbe<SubscriberSession.Command> first = consumer(group, 10);
    TestProbe<SubscriberSession.Command> second = consumer(group, 10);

    List<DueMessage> published = publish(group, "m1", "m2", "m3", "m4");

    GroupDelivery d1 = expectDelivery(first);
    assertEquals("m1", payload(d1));
    assertEquals(MessageIds.of(published.get(0).storageKey()), d1.message().id());
    assertEquals(1, d1.attempt());
    assertEquals(1, d1.tag());
    assertEquals("m2", expectDelivery(second).message().message().getPayload().toStringUtf8());
    assertEquals("m3", expectDelivery(first).message().message().getPayload().toStringUtf8());
    assertEquals("m4", expectDelivery(second).message().message().getPayload().toStringUtf8());
    first.expectNoMessage(Duration.ofMillis(200));
    second.expectNoMessage(Duration.ZERO);
    DeliveryLateness lateness = stats(group).lateness();
    assertEquals(4, lateness.deliveries(), "each first delivery is counted in the group's lateness");
    assertTrue(lateness.p50Us() <= lateness.maxUs());
  }

  /**
   * The replica lost touch with the Raft group and caught up; a cancel it applied meanwhile is still on
   * its way through the topic. The group delivers nothing until the topic confirms it has forwarded
   * everything before, and so never delivers the cancelled message (it did before the catch-up step).
   */
  @Test
  void afterTheReplicaRecoversNothingIsDeliveredUntilTheTopicHasForwardedWhatCameBefore() {
    // The feed is a probe here: the test plays it, to hold its answer back.
    TestProbe<DueFeed.Command> feed = testKit.createTestProbe();
    ActorRef<ConsumerGroup.Command> group = startGroup("billing", PATIENT, null,
        WakeTimer.of(testKit.system().scheduler(), testKit.system().executionContext(),
            InstantSource.system()), feed.ref());
    TestProbe<SubscriberSession.Command> consumer = consumer(group, 10);
    group.tell(new ConsumerGroup.Due(stored("first"), List.of(), true));
    ack(group, consumer, expectDelivery(consumer));

    replicaRecovers();
    DueMessage cancelled = stored("cancelled while out of touch").get(0);
    group.tell(new ConsumerGroup.Due(List.of(cancelled), List.of(), false));
    DueFeed.CatchUp ask = (DueFeed.CatchUp) feed.fishForMessage(WAIT, m -> m instanceof DueFeed.CatchUp
        ? FishingOutcomes.complete()
        : FishingOutcomes.continueAndIgnore()).get(0);
    assertEquals(1, ask.recoveries());
    assertEquals(group, ask.group());
    consumer.expectNoMessage(Duration.ofMillis(300));

    // The replica applied the cancel while catching up; the feed forwards its announcement, then the answer.
    testLog.apply(cancelByStorageKey(TOPIC, cancelled.storageKey()));
    group.tell(new ConsumerGroup.MessagesRemoved(List.of(cancelled.storageKey())));
    group.tell(new ConsumerGroup.CaughtUp(ask.recoveries()));
    group.tell(new ConsumerGroup.Due(stored("after"), List.of(), false));
    assertEquals("after", payload(expectDelivery(consumer)));
  }

  @Test
  void consumerWithoutCreditGetsTheNextMessageOnlyAfterAnAck() {
    ActorRef<ConsumerGroup.Command> group = startGroup("billing", PATIENT);
    TestProbe<SubscriberSession.Command> consumer = consumer(group, 1);
    publish(group, "m1", "m2");

    GroupDelivery first = expectDelivery(consumer);
    assertEquals("m1", first.message().message().getPayload().toStringUtf8());
    consumer.expectNoMessage(Duration.ofMillis(300));
    ack(group, consumer, first);

    assertEquals("m2", expectDelivery(consumer).message().message().getPayload().toStringUtf8());
  }

  @Test
  void ackReportsTheMessageToTheAckSink() {
    ActorRef<ConsumerGroup.Command> group = startGroup("billing", PATIENT);
    TestProbe<SubscriberSession.Command> consumer = consumer(group, 10);
    DueMessage published = publish(group, "m1").get(0);
    GroupDelivery delivery = expectDelivery(consumer);
    assertEquals(1, stats(group).inFlight());

    ack(group, consumer, delivery);

    ConsumerGroup.Acked acked = ackSink.expectMessageClass(ConsumerGroup.Acked.class, WAIT);
    assertEquals("billing", acked.group());
    assertEquals(1, acked.storageKeys().size());
    assertArrayEquals(published.storageKey(), acked.storageKeys().get(0));
    assertEquals(0, stats(group).inFlight());
  }

  @Test
  void aMessageCancelledWhileInFlightIsNeverDeliveredAgainAndItsCreditReturns() {
    ActorRef<ConsumerGroup.Command> group = startGroup("billing", HASTY);
    TestProbe<SubscriberSession.Command> consumer = consumer(group, 1);
    List<DueMessage> published = publish(group, "m1", "m2");
    GroupDelivery first = expectDelivery(consumer);
    assertEquals("m1", payload(first));

    group.tell(new ConsumerGroup.MessagesRemoved(List.of(published.get(0).storageKey())));

    GroupDelivery second = expectDelivery(consumer);
    assertEquals("m2", payload(second), "the cancelled delivery gave its credit back");
    ack(group, consumer, second);
    group.tell(new ConsumerGroup.NackDeliveries(consumer.ref(), TagRanges.of(first.tag(), first.tag()),
        Duration.ZERO));

    consumer.expectNoMessage(Duration.ofMillis(700));
    assertEquals(0, stats(group).inFlight());
  }

  @Test
  void aConsumerThatStopsAnsweringKeepsItsTimedOutCreditSoRedeliveriesGoElsewhere() {
    ActorRef<ConsumerGroup.Command> group = startGroup("stalled", HASTY);
    TestProbe<SubscriberSession.Command> stalled = consumer(group, 1);
    publish(group, "m1");
    GroupDelivery lost = expectDelivery(stalled);
    TestProbe<SubscriberSession.Command> healthy = consumer(group, 5);

    GroupDelivery again = expectDelivery(healthy);
    assertEquals(lost.message().id(), again.message().id());
    assertEquals(2, again.attempt());
    publish(group, "m2");
    assertEquals("m2", expectDelivery(healthy).message().message().getPayload().toStringUtf8());
    stalled.expectNoMessage(Duration.ofMillis(200));

    ack(group, stalled, lost);
    publish(group, "m3", "m4");
    List<String> toStalled = List.of(expectDelivery(stalled).message().message().getPayload().toStringUtf8());
    assertTrue(List.of("m3", "m4").containsAll(toStalled), "a late answer gives the credit back");
  }

  @Test
  void nackWithoutDelayRedeliversAtOnce() {
    ActorRef<ConsumerGroup.Command> group = startGroup("billing", PATIENT);
    TestProbe<SubscriberSession.Command> consumer = consumer(group, 1);
    publish(group, "m1", "m2");
    GroupDelivery first = expectDelivery(consumer);

    group.tell(new ConsumerGroup.NackDeliveries(consumer.ref(), TagRanges.of(first.tag(), first.tag()), Duration.ZERO));

    GroupDelivery again = expectDelivery(consumer);
    assertEquals("m1", again.message().message().getPayload().toStringUtf8());
    assertEquals(2, again.attempt());
  }

  @Test
  void tagsCountUpPerConsumerFromTheFirstTagItWasAddedWith() {
    ActorRef<ConsumerGroup.Command> group = startGroup("billing", PATIENT);
    TestProbe<SubscriberSession.Command> first = testKit.createTestProbe();
    group.tell(new ConsumerGroup.AddConsumer(first.ref(), 10, 0, 41));
    TestProbe<SubscriberSession.Command> second = consumer(group, 10);
    publish(group, "m1", "m2", "m3", "m4");

    assertEquals(List.of(41L, 42L), List.of(expectDelivery(first).tag(), expectDelivery(first).tag()));
    assertEquals(List.of(1L, 2L), List.of(expectDelivery(second).tag(), expectDelivery(second).tag()));
  }

  @Test
  void oneRangeAckSettlesEveryDeliveryInItAndIgnoresTagsAlreadySettled() {
    ActorRef<ConsumerGroup.Command> group = startGroup("billing", PATIENT);
    TestProbe<SubscriberSession.Command> consumer = consumer(group, 10);
    publish(group, "m1", "m2", "m3", "m4", "m5");
    for (int i = 0; i < 5; i++) {
      expectDelivery(consumer);
    }
    group.tell(new ConsumerGroup.AckDeliveries(consumer.ref(), TagRanges.of(2, 2)));
    assertEquals(1, ackSink.expectMessageClass(ConsumerGroup.Acked.class, WAIT).storageKeys().size());

    group.tell(new ConsumerGroup.AckDeliveries(consumer.ref(), new TagRanges(new long[] {1, 4, 5, 5})));

    assertEquals(4, ackSink.expectMessageClass(ConsumerGroup.Acked.class, WAIT).storageKeys().size());
    assertEquals(0, stats(group).inFlight());
  }

  @Test
  void aBatchNeverHoldsMoreThanTheConsumersCredit() {
    ActorRef<ConsumerGroup.Command> group = startGroup("billing", PATIENT);
    TestProbe<SubscriberSession.Command> consumer = consumer(group, 3);
    publish(group, "m1", "m2", "m3", "m4", "m5", "m6", "m7");

    List<GroupDelivery> batch = consumer.expectMessageClass(SubscriberSession.Deliver.class, WAIT).deliveries();
    assertEquals(List.of("m1", "m2", "m3"), batch.stream().map(ConsumerGroupTest::payload).toList());
    consumer.expectNoMessage(Duration.ofMillis(200));

    group.tell(new ConsumerGroup.AckDeliveries(consumer.ref(), TagRanges.of(1, 2)));
    List<GroupDelivery> next = consumer.expectMessageClass(SubscriberSession.Deliver.class, WAIT).deliveries();
    assertEquals(List.of("m4", "m5"), next.stream().map(ConsumerGroupTest::payload).toList());
    assertEquals(3, stats(group).inFlight());
  }

  @Test
  void aConsumerAckingOneAtATimeIsRefilledInBatchesNotOneDeliveryPerAck() {
    ActorRef<ConsumerGroup.Command> group = startGroup("billing", PATIENT);
    TestProbe<SubscriberSession.Command> consumer = consumer(group, 10);
    publish(group, IntStream.rangeClosed(1, 20).mapToObj(i -> "m" + i).toArray(String[]::new));
    assertEquals(10, consumer.expectMessageClass(SubscriberSession.Deliver.class, WAIT).deliveries().size());

    for (long tag = 1; tag <= 4; tag++) {
      group.tell(new ConsumerGroup.AckDeliveries(consumer.ref(), TagRanges.of(tag, tag)));
    }
    stats(group); // the pump of those acks is queued behind them: it has run before the next answer
    assertEquals(6, stats(group).inFlight(), "four acks of a credit of ten: no frame of one delivery each");

    group.tell(new ConsumerGroup.AckDeliveries(consumer.ref(), TagRanges.of(5, 5)));
    List<GroupDelivery> refill = consumer.expectMessageClass(SubscriberSession.Deliver.class, WAIT).deliveries();
    assertEquals(List.of("m11", "m12", "m13", "m14", "m15"), refill.stream().map(ConsumerGroupTest::payload)
        .toList(), "half the credit back: one refill of five");
  }

  @Test
  void aConsumerNeverHoldsMorePayloadBytesUnackedThanItsBound() {
    ActorRef<ConsumerGroup.Command> group = startGroup("billing", PATIENT);
    TestProbe<SubscriberSession.Command> consumer = testKit.createTestProbe();
    group.tell(new ConsumerGroup.AddConsumer(consumer.ref(), 100, 250, 1));
    publish(group, "a".repeat(100), "b".repeat(100), "c".repeat(100), "d".repeat(300), "e".repeat(10));

    List<GroupDelivery> batch = consumer.expectMessageClass(SubscriberSession.Deliver.class, WAIT).deliveries();
    assertEquals(List.of("a", "b"), batch.stream().map(d -> payload(d).substring(0, 1)).toList(),
        "a third message of 100 bytes would make 300, past the bound of 250");
    consumer.expectNoMessage(Duration.ofMillis(200));

    group.tell(new ConsumerGroup.AckDeliveries(consumer.ref(), TagRanges.of(1, 1)));
    assertEquals("c", payload(consumer.expectMessageClass(SubscriberSession.Deliver.class, WAIT).deliveries()
        .get(0)).substring(0, 1));
    group.tell(new ConsumerGroup.AckDeliveries(consumer.ref(), TagRanges.of(2, 3)));
    List<GroupDelivery> large = consumer.expectMessageClass(SubscriberSession.Deliver.class, WAIT).deliveries();
    assertEquals(List.of(300), large.stream().map(d -> d.message().payloadBytes()).toList(),
        "a message larger than the bound goes out alone, to a consumer holding nothing, and waits in line");
    consumer.expectNoMessage(Duration.ofMillis(200));
    group.tell(new ConsumerGroup.AckDeliveries(consumer.ref(), TagRanges.of(4, 4)));
    assertEquals("e", payload(consumer.expectMessageClass(SubscriberSession.Deliver.class, WAIT).deliveries()
        .get(0)).substring(0, 1));
  }

  @Test
  void ackOfAnotherConsumersTagLeavesTheDeliveryInFlight() {
    ActorRef<ConsumerGroup.Command> group = startGroup("billing", PATIENT);
    TestProbe<SubscriberSession.Command> owner = consumer(group, 10);
    TestProbe<SubscriberSession.Command> other = consumer(group, 10);
    publish(group, "m1");
    GroupDelivery delivery = expectDelivery(owner);

    group.tell(new ConsumerGroup.AckDeliveries(other.ref(), TagRanges.of(delivery.tag(), delivery.tag())));

    ackSink.expectNoMessage(Duration.ofMillis(200));
    assertEquals(1, stats(group).inFlight());
    ack(group, owner, delivery);
    ackSink.expectMessageClass(ConsumerGroup.Acked.class, WAIT);
  }

  @Test
  void messageIsDeadLetteredAfterMaxDeliveries() {
    ActorRef<ConsumerGroup.Command> group = startGroup("billing",
        new GroupSettings(Duration.ofMillis(300), 2, Duration.ofMinutes(1)));
    TestProbe<SubscriberSession.Command> consumer = consumer(group, 10);
    publish(group, "m1");

    assertEquals(1, expectDelivery(consumer).attempt());
    assertEquals(2, expectDelivery(consumer).attempt());

    String deadLetterTopic = TOPIC + ".dead-letter";
    consumer.awaitAssert(WAIT, () -> {
      assertEquals(1, testLog.stateMachine().pending(deadLetterTopic));
      assertEquals(0, testLog.stateMachine().pending(TOPIC));
      return null;
    });
    List<StoredMessage> copies = testLog.messagesOf(deadLetterTopic);
    assertEquals(1, copies.size());
    assertEquals("m1", copies.get(0).getPayload().toStringUtf8());
    Map<String, String> headers = Headers.asMap(copies.get(0).getHeadersList());
    assertTrue(headers.get("futureq-dead-letter-reason").contains("max-deliveries 2"));
    assertEquals("billing", headers.get("futureq-dead-letter-group"));
    assertTrue(testLog.messagesOf(TOPIC).isEmpty());
    consumer.expectNoMessage(Duration.ofMillis(500));
  }

  @Test
  void messagesOfAStoppedConsumerAreRedeliveredToAnother() {
    ActorRef<ConsumerGroup.Command> group = startGroup("billing", PATIENT);
    TestProbe<SubscriberSession.Command> leaving = consumer(group, 10);
    TestProbe<SubscriberSession.Command> staying = consumer(group, 10);
    publish(group, "m1", "m2");
    GroupDelivery lost = expectDelivery(leaving);
    assertEquals("m2", expectDelivery(staying).message().message().getPayload().toStringUtf8());

    leaving.stop();

    GroupDelivery again = expectDelivery(staying);
    assertEquals(lost.message().id(), again.message().id());
    assertEquals(2, again.attempt());
    assertEquals(1, stats(group).consumers());
  }

  @Test
  void aConsumerBeyondTheGroupLimitIsRefusedAndTheOthersKeepTheirPlace() {
    ActorRef<ConsumerGroup.Command> group = startGroup("crowded", PATIENT);
    TestProbe<SubscriberSession.Command> first = testKit.createTestProbe();
    TestProbe<SubscriberSession.Command> second = testKit.createTestProbe();
    TestProbe<SubscriberSession.Command> third = testKit.createTestProbe();
    group.tell(new ConsumerGroup.AddConsumer(first.getRef(), 10, 0, 1));
    group.tell(new ConsumerGroup.AddConsumer(second.getRef(), 10, 0, 1));
    group.tell(new ConsumerGroup.AddConsumer(third.getRef(), 10, 0, 1));
    SubscriberSession.Refuse refuse = third.expectMessageClass(SubscriberSession.Refuse.class, WAIT);
    assertEquals(SubscriberSession.Reason.OVER_LIMIT, refuse.refusal().reason());
    assertTrue(refuse.refusal().message().contains("max-consumers-per-group"), refuse.refusal().message());
    assertEquals(2, stats(group).consumers());
  }

  @Test
  void aMessageBehindTheCursorButNotDueYetWaitsForItsDueTime() {
    // A cursor read while the wall clock was an hour ahead, which then stepped back.
    byte[] cursorAhead = StorageKeys.message(StorageKeys.topicHash(TOPIC),
        (System.currentTimeMillis() + 3_600_000) / BUCKET_MS, 0);
    ActorRef<ConsumerGroup.Command> group = startGroup("billing", PATIENT, cursorAhead);
    TestProbe<SubscriberSession.Command> consumer = consumer(group, 10);
    long due = System.currentTimeMillis() + 1_000;
    publishAt(group, due, "later");

    GroupDelivery delivery = expectDelivery(consumer);

    assertTrue(System.currentTimeMillis() >= due, "delivered " + (due - System.currentTimeMillis()) + " ms early");
    assertEquals("later", payload(delivery));
  }

  @Test
  void messagesReadAheadEachGoOutAtTheirOwnDueTime() {
    // The node's precise timer: the actor scheduler's 10 ms tick would wake after both are due.
    ActorRef<ConsumerGroup.Command> group = startGroup("billing", PATIENT, null, preciseTimer);
    TestProbe<SubscriberSession.Command> consumer = consumer(group, 10);
    // Two messages in the last milliseconds of one bucket: the read ahead of it takes both early.
    long bucket = (System.currentTimeMillis() + 500) / BUCKET_MS;
    long firstDue = bucket * BUCKET_MS + BUCKET_MS - 3;
    long secondDue = firstDue + 2;
    publishAt(group, firstDue, "first");
    publishAt(group, secondDue, "second");

    assertEquals("first", payload(expectDelivery(consumer)));
    assertEquals("second", payload(expectDelivery(consumer)));
    assertTrue(System.currentTimeMillis() >= secondDue, "the second was delivered early");
  }

  private void publishAt(ActorRef<ConsumerGroup.Command> group, long dueMs, String payload) {
    CommandResult result = testLog.apply(store(message(TOPIC, payload, dueMs)));
    CommandResult.StoredRef ref = ((CommandResult.Stored) result).messages().get(0);
    feeds.get(group).tell(new DueFeed.Stored(testLog.indexOf(result),
        List.of(new DueMessage(ref.storageKey(), ref.message()))));
  }

  private ActorRef<ConsumerGroup.Command> startGroup(String name, GroupSettings settings) {
    return startGroup(name, settings, null);
  }

  private ActorRef<ConsumerGroup.Command> startGroup(String name, GroupSettings settings, byte[] startAfter) {
    return startGroup(name, settings, startAfter,
        WakeTimer.of(testKit.system().scheduler(), testKit.system().executionContext(),
            InstantSource.system()));
  }

  /** A group with a due feed of its own, as its topic would give it. */
  private ActorRef<ConsumerGroup.Command> startGroup(String name, GroupSettings settings, byte[] startAfter,
      WakeTimer wakeTimer) {
    ActorRef<DueFeed.Command> feed = testKit.spawn(DueFeed.create(TOPIC, TOPIC_SETTINGS, testLog.store(), BUCKET_MS,
        storageExecutor, wakeTimer, WAIT));
    ActorRef<ConsumerGroup.Command> group = startGroup(name, settings, startAfter, wakeTimer, feed);
    feeds.put(group, feed);
    return group;
  }

  private ActorRef<ConsumerGroup.Command> startGroup(String name, GroupSettings settings, byte[] startAfter,
      WakeTimer wakeTimer, ActorRef<DueFeed.Command> feed) {
    testLog.apply(createGroup(TOPIC, name));
    GroupContext context = new GroupContext(TOPIC, name, settings, TOPIC_SETTINGS,
        new RecoveringLog(testLog.log(), recoveries), MAX_CONSUMERS, wakeTimer, ackSink.ref(), feed);
    ActorRef<ConsumerGroup.Command> group = testKit.spawn(ConsumerGroup.create(context, startAfter));
    groups.add(group);
    return group;
  }

  private void replicaRecovers() {
    recoveries.incrementAndGet();
  }

  /** The test's log, with the recovery count a clustered replica would report. */
  private static final class RecoveringLog implements EventLog {
    private final EventLog log;
    private final AtomicLong recoveries;

    RecoveringLog(EventLog log, AtomicLong recoveries) {
      this.log = log;
      this.recoveries = recoveries;
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
    public long recoveries() {
      return recoveries.get();
    }

    @Override
    public void close() {}
  }

  private static TestProbe<SubscriberSession.Command> consumer(ActorRef<ConsumerGroup.Command> group, int credit) {
    TestProbe<SubscriberSession.Command> probe = testKit.createTestProbe();
    group.tell(new ConsumerGroup.AddConsumer(probe.ref(), credit, 0, 1));
    return probe;
  }

  /** Stores messages due now and announces them to the group's feed, as the topic does after commit. */
  private List<DueMessage> publish(ActorRef<ConsumerGroup.Command> group, String... payloads) {
    long[] index = new long[1];
    List<DueMessage> stored = stored(index, payloads);
    feeds.get(group).tell(new DueFeed.Stored(index[0], stored));
    return stored;
  }

  private List<DueMessage> stored(String... payloads) {
    return stored(new long[1], payloads);
  }

  /** Stores messages due now; {@code index[0]} receives the entry's log index. */
  private List<DueMessage> stored(long[] index, String... payloads) {
    long now = System.currentTimeMillis();
    List<NewMessage> messages = new ArrayList<>();
    for (String payload : payloads) {
      messages.add(message(TOPIC, payload, now));
    }
    CommandResult result = testLog.apply(store(messages.toArray(NewMessage[]::new)));
    index[0] = testLog.indexOf(result);
    List<DueMessage> stored = new ArrayList<>();
    for (CommandResult.StoredRef ref : ((CommandResult.Stored) result).messages()) {
      stored.add(new DueMessage(ref.storageKey(), ref.message()));
    }
    return stored;
  }

  private static final Map<TestProbe<SubscriberSession.Command>, ArrayDeque<GroupDelivery>> UNREAD =
      new HashMap<>();

  /** The next delivery to {@code consumer}; the group sends them in batches. */
  private static GroupDelivery expectDelivery(TestProbe<SubscriberSession.Command> consumer) {
    ArrayDeque<GroupDelivery> unread = UNREAD.computeIfAbsent(consumer, c -> new ArrayDeque<>());
    if (unread.isEmpty()) {
      unread.addAll(consumer.expectMessageClass(SubscriberSession.Deliver.class, WAIT).deliveries());
    }
    return unread.poll();
  }

  private static void ack(ActorRef<ConsumerGroup.Command> group, TestProbe<SubscriberSession.Command> consumer,
      GroupDelivery delivery) {
    group.tell(new ConsumerGroup.AckDeliveries(consumer.ref(), TagRanges.of(delivery.tag(), delivery.tag())));
  }

  private static String payload(GroupDelivery delivery) {
    return delivery.message().message().getPayload().toStringUtf8();
  }

  private static ConsumerGroup.Stats stats(ActorRef<ConsumerGroup.Command> group) {
    TestProbe<ConsumerGroup.Stats> probe = testKit.createTestProbe();
    group.tell(new ConsumerGroup.GetStats(probe.ref()));
    return probe.expectMessageClass(ConsumerGroup.Stats.class, WAIT);
  }
}
