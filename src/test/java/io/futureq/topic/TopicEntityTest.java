package io.futureq.topic;

import static io.futureq.log.Commands.cancelByStorageKey;
import static io.futureq.log.Commands.deleteGroup;
import static io.futureq.log.Commands.message;
import static io.futureq.log.Commands.rescheduleByStorageKey;
import static io.futureq.log.Commands.storeAt;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.config.GroupSettings;
import io.futureq.config.StorageSettings;
import io.futureq.config.TopicSettings;
import io.futureq.group.ConsumerGroup;
import io.futureq.group.DueMessage;
import io.futureq.group.GroupDelivery;
import io.futureq.group.PreciseWakeTimer;
import io.futureq.group.SubscriberSession;
import io.futureq.group.TagRanges;
import io.futureq.group.WakeTimer;
import io.futureq.log.Barrier;
import io.futureq.log.BrokerStateMachine;
import io.futureq.log.CommandResult;
import io.futureq.log.EventLog;
import io.futureq.log.GroupRegistry;
import io.futureq.log.LocalEventLog;
import io.futureq.log.LogUnavailableException;
import io.futureq.log.WriteQueueLimit;
import io.futureq.log.proto.LogCommand;
import io.futureq.log.proto.NewMessage;
import io.futureq.storage.OrderedStore.Space;
import io.futureq.storage.RocksStore;
import io.futureq.testing.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.pattern.StatusReply;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The topic entity with real parts around it: RocksDB under a temp dir, the state machine and the
 * {@link LocalEventLog}, whose applied results reach the entity through the real {@link AppliedAnnouncer} (as
 * on a clustered node, to the topics hosted here), and the real due feed and groups the entity spawns.
 * Consumers and the entity's shard are probes. The entity is spawned directly, not through sharding.
 *
 * <p>The entity's own timers (delete batches, expiry, retries) run on {@link ManualTime}, and the clock the
 * entity reads moves with it ({@link #timePasses}). Nothing moves time but the test: {@link #quiesce} lets
 * whatever has started finish, so that "nothing yet" is asserted without waiting. The due path (due feed and
 * groups, package {@code group}) reads the wall clock here (its wake timer's), which ManualTime does not move: due
 * deliveries are tested with messages due already, and once in real time on the node's precise wake timer; the
 * groups' own timers on the test's time are {@code ConsumerGroupTimersTest}'s.
 */
class TopicEntityTest {
  /** ManualTime is all the entity needs besides Pekko's defaults: spawned directly, it needs no cluster. */
  private static final ActorTestKit testKit = ActorTestKit.create(ManualTime.config());
  private static final ManualTime manualTime = ManualTime.get(testKit.system());
  private static final long BUCKET_MS = 10;
  private static final Duration WAIT = Duration.ofSeconds(5);
  private static final Duration DELETE_BATCH_INTERVAL = Duration.ofSeconds(1);
  private static final Duration RETRY_BACKOFF = Duration.ofSeconds(2);
  private static final Duration TTL = Duration.ofSeconds(10);
  private static final long HOUR_MS = Duration.ofHours(1).toMillis();
  private static final TopicSettings SETTINGS = new TopicSettings(Duration.ofMillis(BUCKET_MS), 100,
      DELETE_BATCH_INTERVAL, 100, RETRY_BACKOFF, Duration.ofSeconds(30));
  private static final GroupSettings GROUP_SETTINGS = new GroupSettings(Duration.ofHours(1), 0, Duration.ofMinutes(1));
  private static final AtomicInteger TOPICS = new AtomicInteger();

  @TempDir
  Path dir;

  private final String topic = "orders-" + TOPICS.incrementAndGet();
  private final ManualClock clock = new ManualClock();
  private final LocalTopics localTopics = new LocalTopics();
  private final Map<CommandResult, Long> indexes = Collections.synchronizedMap(new IdentityHashMap<>());
  private final TestProbe<ClusterSharding.ShardCommand> shard = testKit.createTestProbe();
  /** The entity's own writes (deletes, expiries), each told once the log has applied it. */
  private final TestProbe<LogCommand> written = testKit.createTestProbe();
  private RocksStore store;
  private LocalEventLog log;
  private AppliedAnnouncer announcer;
  private WatchedLog topicLog;
  private ExecutorService storageExecutor;
  private PreciseWakeTimer preciseTimer;
  private ActorRef<TopicEntity.Command> entity;

  @AfterAll
  static void shutdown() {
    testKit.shutdownTestKit();
  }

  @BeforeEach
  void open() {
    store = RocksStore.open(dir, StorageSettings.defaults(dir));
    BrokerStateMachine stateMachine = new BrokerStateMachine(store, BUCKET_MS);
    // Replicated: announcements go to the entities hosted here, found in localTopics; no router is needed.
    announcer = new AppliedAnnouncer(null, localTopics, true, () -> false);
    log = new LocalEventLog(store, stateMachine, false, 1024, new WriteQueueLimit(100_000, 1L << 30),
        (index, result) -> {
          indexes.put(result, index);
          announcer.applied(index, result);
        }, nanos -> { });
    topicLog = new WatchedLog(log, written.ref());
    storageExecutor = Executors.newSingleThreadExecutor();
  }

  @AfterEach
  void close() throws InterruptedException {
    if (entity != null) {
      testKit.stop(entity);
    }
    storageExecutor.shutdown();
    assertTrue(storageExecutor.awaitTermination(10, TimeUnit.SECONDS));
    log.close();
    store.close();
    if (preciseTimer != null) {
      preciseTimer.close();
    }
  }

  // Attach

  @Test
  void attachRegistersTheDurableGroupOnFirstUseAndJoinsEachConsumerToIt() {
    start();
    TestProbe<SubscriberSession.Command> first = testKit.createTestProbe();
    TestProbe<SubscriberSession.Command> second = testKit.createTestProbe();

    ActorRef<ConsumerGroup.Command> group = attach("billing", first, 10);

    assertEquals(List.of("billing"), GroupRegistry.read(store, topic));
    assertEquals(group, attach("billing", second, 10), "one group, joined by both");
    ConsumerGroup.Stats billing = stats().groups().get(0);
    assertEquals("billing", billing.group());
    assertEquals(2, billing.consumers());
  }

  @Test
  void attachFailsNamingGroupAndTopicWhenTheGroupCannotBeRegisteredAndALaterAttachSucceeds() {
    start();
    topicLog.failNext(LogCommand.CommandCase.CREATE_GROUP);
    TestProbe<SubscriberSession.Command> consumer = testKit.createTestProbe();

    StatusReply<ActorRef<ConsumerGroup.Command>> refused = tryAttach("billing", consumer, 10);

    assertTrue(refused.isError());
    assertTrue(refused.getError().getMessage().startsWith("cannot create group 'billing' of topic " + topic + ": "),
        refused.getError().getMessage());
    assertNotNull(attach("billing", consumer, 10));
  }

  @Test
  void aUniversalSubscriberIsHandedWhatIsDueFromItsAttachOnNotWhatWasDueBefore() {
    start();
    publish(message(topic, "before", clock.millis() - Duration.ofMinutes(1).toMillis()));
    TestProbe<SubscriberSession.Command> subscriber = testKit.createTestProbe();
    attach("", subscriber, 10);

    publish(message(topic, "after", clock.millis()));

    assertEquals(List.of("after"), payloads(subscriber.expectMessageClass(SubscriberSession.Deliver.class, WAIT)
        .deliveries()));
  }

  // MessagesStored

  @Test
  void aStoredMessageThatIsDueIsHandedToAConsumerOfEachGroup() {
    start();
    TestProbe<SubscriberSession.Command> billing = testKit.createTestProbe();
    TestProbe<SubscriberSession.Command> audit = testKit.createTestProbe();
    attach("billing", billing, 10);
    attach("audit", audit, 10);

    publish(message(topic, "m1", clock.millis()));

    for (TestProbe<SubscriberSession.Command> consumer : List.of(billing, audit)) {
      GroupDelivery delivery = deliveries(consumer, 1).get(0);
      assertEquals("m1", payload(delivery));
      assertEquals(1, delivery.attempt());
    }
  }

  /** In real time, on the node's precise timer: see the class comment. */
  @Test
  void aMessageDueLaterIsHandedOverAtItsDueTimeAndNeverBefore() {
    preciseTimer = new PreciseWakeTimer();
    start(preciseTimer, WAIT);
    TestProbe<SubscriberSession.Command> consumer = testKit.createTestProbe();
    attach("billing", consumer, 10);
    long due = System.currentTimeMillis() + 300;

    publish(message(topic, "later", due));

    assertEquals("later", payload(deliveries(consumer, 1).get(0)));
    long handedOverAt = System.currentTimeMillis();
    assertTrue(handedOverAt >= due, "handed over " + (due - handedOverAt) + " ms before its due time");
  }

  // MessagesRemoved, Settle

  @Test
  void aCancelledMessageIsNeverHandedOverOnceTheCancelIsSettled() {
    start();
    TestProbe<SubscriberSession.Command> consumer = testKit.createTestProbe();
    ActorRef<ConsumerGroup.Command> group = attach("billing", consumer, 1);
    List<DueMessage> stored = publish(message(topic, "m1", clock.millis()), message(topic, "m2", clock.millis()));
    GroupDelivery first = deliveries(consumer, 1).get(0);
    assertEquals("m1", payload(first), "m2 waits for credit");

    CommandResult cancelled = apply(cancelByStorageKey(topic, stored.get(1).storageKey()));
    assertTrue(settle(indexes.get(cancelled)).isSuccess());
    ack(group, consumer, first);
    publish(message(topic, "m3", clock.millis()));

    assertEquals(List.of("m3"), payloads(consumer.expectMessageClass(SubscriberSession.Deliver.class, WAIT)
        .deliveries()));
  }

  @Test
  void settlingEverythingBeforeIsAnsweredOnceTheGroupsHaveTakenItIn() {
    start();
    attach("billing", testKit.createTestProbe(), 10);

    assertTrue(settle(TopicEntity.Settle.EVERYTHING_BEFORE).isSuccess());
  }

  @Test
  void aSettleOfAnEntryThisReplicaDoesNotApplyInTimeFailsNamingTheTopic() {
    start(manualWakeTimer(), Duration.ofMillis(200));

    StatusReply<Done> reply = settle(log.appliedIndex() + 1_000);

    assertTrue(reply.isError());
    String why = reply.getError().getMessage();
    assertTrue(why.startsWith("topic " + topic + ": ") && why.contains("did not apply log index"), why);
  }

  // MessageMoved

  @Test
  void aMessageRescheduledToNowIsHandedOverAtOnceUnderItsNewKey() {
    start();
    TestProbe<SubscriberSession.Command> consumer = testKit.createTestProbe();
    attach("billing", consumer, 10);
    DueMessage later = publish(message(topic, "moved", clock.millis() + HOUR_MS)).get(0);

    apply(rescheduleByStorageKey(topic, later.storageKey(), clock.millis(), clock.millis()));

    GroupDelivery delivery = deliveries(consumer, 1).get(0);
    assertEquals("moved", payload(delivery));
    assertFalse(Arrays.equals(later.storageKey(), delivery.message().storageKey()), "delivered under its new key");
  }

  // GetStats

  @Test
  void statsCountThePendingMessagesAndShowEachGroupWithItsConsumersAndBacklog() {
    start();
    attach("billing", testKit.createTestProbe(), 10);
    long due = clock.millis() + HOUR_MS;
    publish(message(topic, "a", due), message(topic, "b", due + 1));

    TopicStats stats = stats();

    assertEquals(topic, stats.topic());
    assertEquals(2, stats.pending());
    assertEquals(0, stats.dueNow());
    assertEquals(due, stats.nextDueMs());
    assertEquals(1, stats.groups().size());
    assertEquals("billing", stats.groups().get(0).group());
    assertEquals(1, stats.groups().get(0).consumers());
    assertEquals(List.of(new GroupBacklog("billing", 2, 0)), stats.backlogs());
  }

  // GroupsDeleted

  @Test
  void deletingAGroupEndsItsConsumersStreamsDropsItsUnwrittenAcksAndFreesItsName() {
    start();
    TestProbe<SubscriberSession.Command> consumer = testKit.createTestProbe();
    ActorRef<ConsumerGroup.Command> group = attach("billing", consumer, 10);
    publish(message(topic, "m1", clock.millis()));
    ack(group, consumer, deliveries(consumer, 1).get(0));
    quiesce();

    apply(deleteGroup(topic, "billing"));

    SubscriberSession.Refusal refusal = consumer.expectMessageClass(SubscriberSession.Refuse.class, WAIT).refusal();
    assertEquals(SubscriberSession.Reason.DELETED, refusal.reason());
    assertEquals("group 'billing' of topic " + topic + " was deleted", refusal.message());
    timePasses(DELETE_BATCH_INTERVAL);
    quiesce();
    written.expectNoMessage(Duration.ZERO);
    assertNotEquals(group, attach("billing", testKit.createTestProbe(), 10), "a new group of the same name");
  }

  // Acks: the delete batch timer, keyed acks, retries, the way out

  @Test
  void acksAreDeletedInOneBatchWhenTheDeleteBatchIntervalHasPassedAndNotBefore() {
    start();
    TestProbe<SubscriberSession.Command> consumer = testKit.createTestProbe();
    ActorRef<ConsumerGroup.Command> group = attach("billing", consumer, 10);
    List<DueMessage> stored = publish(message(topic, "m1", clock.millis()), message(topic, "m2", clock.millis()));
    List<GroupDelivery> delivered = deliveries(consumer, 2);
    ack(group, consumer, delivered.get(0));
    ack(group, consumer, delivered.get(1));
    quiesce();

    timePasses(DELETE_BATCH_INTERVAL.minusMillis(1));
    quiesce();
    written.expectNoMessage(Duration.ZERO);
    assertNotNull(store.get(Space.MESSAGES, stored.get(0).storageKey()));

    timePasses(Duration.ofMillis(1));
    LogCommand delete = written.expectMessageClass(LogCommand.class, WAIT);
    assertEquals(2, delete.getDelete().getAcksCount(), "both acks in one write");
    for (DueMessage m : stored) {
      assertNull(store.get(Space.MESSAGES, m.storageKey()));
    }
  }

  @Test
  void anAckOfAKeyedMessageIsDeletedAtOnceSoItsKeyIsFreeAgain() {
    start();
    TestProbe<SubscriberSession.Command> consumer = testKit.createTestProbe();
    ActorRef<ConsumerGroup.Command> group = attach("billing", consumer, 10);
    DueMessage stored = publish(message(topic, "m1", clock.millis(), "order-7", 0, Map.of())).get(0);

    ack(group, consumer, deliveries(consumer, 1).get(0));

    LogCommand delete = written.expectMessageClass(LogCommand.class, WAIT);
    assertEquals(1, delete.getDelete().getAcksCount());
    assertNull(store.get(Space.MESSAGES, stored.storageKey()));
  }

  @Test
  void aDeleteThatFailsIsWrittenAgainAfterTheRetryBackoff() {
    start();
    topicLog.failNext(LogCommand.CommandCase.DELETE);
    TestProbe<SubscriberSession.Command> consumer = testKit.createTestProbe();
    ActorRef<ConsumerGroup.Command> group = attach("billing", consumer, 10);
    DueMessage stored = publish(message(topic, "m1", clock.millis())).get(0);
    ack(group, consumer, deliveries(consumer, 1).get(0));
    quiesce();
    timePasses(DELETE_BATCH_INTERVAL);
    quiesce();
    assertEquals(1, topicLog.failed(), "the first write failed");

    timePasses(RETRY_BACKOFF.minusMillis(1));
    quiesce();
    written.expectNoMessage(Duration.ZERO);

    timePasses(Duration.ofMillis(1));
    assertEquals(1, written.expectMessageClass(LogCommand.class, WAIT).getDelete().getAcksCount());
    assertNull(store.get(Space.MESSAGES, stored.storageKey()));
  }

  @Test
  void acksNotWrittenYetAreWrittenWhenTheTopicStops() {
    start();
    TestProbe<SubscriberSession.Command> consumer = testKit.createTestProbe();
    ActorRef<ConsumerGroup.Command> group = attach("billing", consumer, 10);
    publish(message(topic, "m1", clock.millis()));
    ack(group, consumer, deliveries(consumer, 1).get(0));
    quiesce();

    testKit.stop(entity);
    entity = null;

    assertEquals(1, written.expectMessageClass(LogCommand.class, WAIT).getDelete().getAcksCount());
    assertTrue(localTopics.find(topic).isEmpty(), "no longer hosted here");
  }

  // Expiry, Wake

  @Test
  void aMessageIsRemovedWhenItsTtlRunsOutAndNotBefore() {
    start();
    long due = clock.millis();
    DueMessage stored = publish(message(topic, "short-lived", due, "", due + TTL.toMillis(), Map.of())).get(0);
    quiesce();

    timePasses(TTL.minusMillis(1));
    quiesce();
    written.expectNoMessage(Duration.ZERO);
    assertNotNull(store.get(Space.MESSAGES, stored.storageKey()));

    timePasses(Duration.ofMillis(1));
    assertExpired(written.expectMessageClass(LogCommand.class, WAIT), stored);
    assertNull(store.get(Space.MESSAGES, stored.storageKey()));
  }

  /** Wake is how a node starts, through sharding, the topics it has messages of; here the entity is spawned. */
  @Test
  void aWokenTopicRemovesWhatExpiredBeforeItRanAtOnceAndTheRestWhenItExpires() {
    long due = clock.millis();
    DueMessage expired = publish(message(topic, "expired while down", due, "", due + 1_000, Map.of())).get(0);
    DueMessage later = publish(message(topic, "expires later", due, "", due + TTL.toMillis(), Map.of())).get(0);
    timePasses(Duration.ofSeconds(2));

    start();
    entity.tell(new TopicEntity.Wake());

    assertExpired(written.expectMessageClass(LogCommand.class, WAIT), expired);
    quiesce();
    timePasses(TTL.minusSeconds(2).minusMillis(1));
    quiesce();
    written.expectNoMessage(Duration.ZERO);
    timePasses(Duration.ofMillis(1));
    assertExpired(written.expectMessageClass(LogCommand.class, WAIT), later);
  }

  // StoreReplaced

  @Test
  void aReplacedStoreMakesTheTopicAskItsShardToPassivateIt() {
    start();

    announcer.storeReplaced(log.appliedIndex());

    ClusterSharding.Passivate<?> passivate = shard.expectMessageClass(ClusterSharding.Passivate.class, WAIT);
    assertEquals(entity, passivate.entity());
  }

  private void start() {
    start(manualWakeTimer(), WAIT);
  }

  /** Spawns the entity and waits until it runs, and so is hosted here and told what the log applies. */
  private void start(WakeTimer wakeTimer, Duration askTimeout) {
    TopicContext context = new TopicContext(SETTINGS, GROUP_SETTINGS, store, BUCKET_MS, topicLog, storageExecutor,
        askTimeout, 4, wakeTimer, localTopics);
    entity = testKit.spawn(TopicEntity.create(topic, context, shard.ref(), clock));
    stats();
  }

  /** The due feed's and groups' wake-ups on the actor system's scheduler, which ManualTime drives. */
  private static WakeTimer manualWakeTimer() {
    return WakeTimer.of(testKit.system().scheduler(), testKit.system().executionContext(), InstantSource.system());
  }

  /** Moves the entity's clock and fires the timers due meanwhile. */
  private void timePasses(Duration amount) {
    clock.advance(amount);
    manualTime.timePasses(amount);
  }

  /**
   * Lets what has started finish while no time passes: the entity handles what it was sent, the storage
   * executor runs what it was given and the log applies what was appended, three times over (the longest chain
   * here: a timer tick, the scan it starts, the scan's write, the answer to the write).
   */
  private void quiesce() {
    for (int i = 0; i < 3; i++) {
      stats();
      CompletableFuture.runAsync(() -> { }, storageExecutor).orTimeout(WAIT.toMillis(), TimeUnit.MILLISECONDS).join();
      apply(Barrier.COMMAND);
    }
  }

  private TopicStats stats() {
    TestProbe<StatusReply<TopicStats>> reply = testKit.createTestProbe();
    entity.tell(new TopicEntity.GetStats(reply.ref()));
    return reply.receiveMessage(WAIT).getValue();
  }

  private StatusReply<Done> settle(long index) {
    TestProbe<StatusReply<Done>> reply = testKit.createTestProbe();
    entity.tell(new TopicEntity.Settle(index, reply.ref()));
    return reply.receiveMessage(WAIT);
  }

  private ActorRef<ConsumerGroup.Command> attach(String group, TestProbe<SubscriberSession.Command> consumer,
      int credit) {
    StatusReply<ActorRef<ConsumerGroup.Command>> reply = tryAttach(group, consumer, credit);
    assertTrue(reply.isSuccess(), () -> "attach to '" + group + "' failed: " + reply.getError());
    return reply.getValue();
  }

  private StatusReply<ActorRef<ConsumerGroup.Command>> tryAttach(String group,
      TestProbe<SubscriberSession.Command> consumer, int credit) {
    TestProbe<StatusReply<ActorRef<ConsumerGroup.Command>>> reply = testKit.createTestProbe();
    entity.tell(new TopicEntity.Attach(group, new ConsumerGroup.AddConsumer(consumer.ref(), credit, 0, 1),
        reply.ref()));
    return reply.receiveMessage(WAIT);
  }

  /** Acks {@code delivery}; once the group answers after it, its ack is on its way to the entity. */
  private static void ack(ActorRef<ConsumerGroup.Command> group, TestProbe<SubscriberSession.Command> consumer,
      GroupDelivery delivery) {
    group.tell(new ConsumerGroup.AckDeliveries(consumer.ref(), TagRanges.of(delivery.tag(), delivery.tag())));
    TestProbe<ConsumerGroup.Stats> reply = testKit.createTestProbe();
    group.tell(new ConsumerGroup.GetStats(reply.ref()));
    reply.receiveMessage(WAIT);
  }

  /** Stores the messages through the log, which announces them to the entity as on a node. */
  private List<DueMessage> publish(NewMessage... messages) {
    CommandResult.Stored stored = (CommandResult.Stored) apply(storeAt(clock.millis(), messages));
    List<DueMessage> out = new ArrayList<>();
    for (CommandResult.StoredRef ref : stored.messages()) {
      out.add(new DueMessage(ref.storageKey(), ref.message()));
    }
    return out;
  }

  private CommandResult apply(LogCommand command) {
    return log.append(command).toCompletableFuture().orTimeout(WAIT.toMillis(), TimeUnit.MILLISECONDS).join();
  }

  /** The next {@code n} deliveries to {@code consumer}, however the group batched them. */
  private static List<GroupDelivery> deliveries(TestProbe<SubscriberSession.Command> consumer, int n) {
    List<GroupDelivery> out = new ArrayList<>();
    while (out.size() < n) {
      out.addAll(consumer.expectMessageClass(SubscriberSession.Deliver.class, WAIT).deliveries());
    }
    assertEquals(n, out.size());
    return out;
  }

  private static void assertExpired(LogCommand write, DueMessage message) {
    assertEquals(LogCommand.CommandCase.EXPIRE, write.getCommandCase());
    assertEquals(1, write.getExpire().getStorageKeysCount());
    assertArrayEquals(message.storageKey(), write.getExpire().getStorageKeys(0).toByteArray());
  }

  private static List<String> payloads(List<GroupDelivery> deliveries) {
    return deliveries.stream().map(TopicEntityTest::payload).toList();
  }

  private static String payload(GroupDelivery delivery) {
    return delivery.message().message().getPayload().toStringUtf8();
  }

  /**
   * The entity's way to the log: its deletes and expiries are told to {@code written} once applied, and the next
   * write of a kind can be made to fail as a leader change fails it.
   */
  private static final class WatchedLog implements EventLog {
    private static final Set<LogCommand.CommandCase> WATCHED =
        Set.of(LogCommand.CommandCase.DELETE, LogCommand.CommandCase.EXPIRE);
    private final EventLog log;
    private final ActorRef<LogCommand> written;
    private final Set<LogCommand.CommandCase> failNext = ConcurrentHashMap.newKeySet();
    private final AtomicInteger failed = new AtomicInteger();

    WatchedLog(EventLog log, ActorRef<LogCommand> written) {
      this.log = log;
      this.written = written;
    }

    void failNext(LogCommand.CommandCase kind) {
      failNext.add(kind);
    }

    int failed() {
      return failed.get();
    }

    @Override
    public CompletionStage<CommandResult> append(LogCommand command) {
      if (failNext.remove(command.getCommandCase())) {
        failed.incrementAndGet();
        return CompletableFuture.failedFuture(new LogUnavailableException("no write leader (test)", null));
      }
      CompletionStage<CommandResult> result = log.append(command);
      if (!WATCHED.contains(command.getCommandCase())) {
        return result;
      }
      // The entity's own callback hangs off the returned stage: it runs after the probe is told.
      return result.whenComplete((applied, failure) -> {
        if (failure == null) {
          written.tell(command);
        }
      });
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
