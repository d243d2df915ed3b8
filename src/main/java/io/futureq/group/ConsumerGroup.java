package io.futureq.group;

import io.futureq.log.NackMark;
import io.futureq.metrics.GroupMetrics;
import io.futureq.serialization.CborSerializable;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * One named group of one topic: takes the due messages its topic's {@link DueFeed} hands it
 * ({@link DueBuffer}), hands each to one live consumer with credit (round-robin), keeps it in flight until
 * acked ({@link InFlightDeliveries}), and delivers it again after the in-flight timeout, a nack
 * ({@link Redelivery}) or the consumer's loss. This protocol is also the one of {@link UniversalFanout}, the
 * topic's universal subscribers.
 */
public final class ConsumerGroup extends AbstractBehavior<ConsumerGroup.Command> {

  public sealed interface Command extends CborSerializable {}

  /**
   * Adds a consumer that may hold {@code maxInFlight} deliveries and {@code maxInFlightBytes} payload bytes (0: no
   * bound in bytes, as a node of an older version sends it); its deliveries are tagged from {@code firstTag} on (a
   * consumer added again keeps its numbering).
   */
  public record AddConsumer(ActorRef<SubscriberSession.Command> consumer, int maxInFlight, long maxInFlightBytes,
      long firstTag) implements Command {}

  /** The consumer is done with these deliveries. Tags it never received, or already settled, are ignored. */
  public record AckDeliveries(ActorRef<SubscriberSession.Command> consumer, TagRanges tags) implements Command {}

  /** Deliver these again, after {@code requeueDelay}. */
  public record NackDeliveries(ActorRef<SubscriberSession.Command> consumer, TagRanges tags, Duration requeueDelay)
      implements Command {}

  /**
   * Due messages from the topic's {@link DueFeed}, in key order; those the group nacked with a delay
   * before (a restart or a topic move came since) come apart in {@code delayed}, each held until its
   * mark's time. {@code answersDemand}: the answer to the group's last {@link DueFeed.Demand} (otherwise
   * messages that slipped behind the group's position, handed over as soon as they were stored).
   */
  public record Due(List<DueMessage> messages, List<NackDelayed> delayed, boolean answersDemand) implements Command {
    public Due {
      messages = List.copyOf(messages);
      delayed = List.copyOf(delayed);
    }
  }

  /** A due message with the group's durable nack delay on it. */
  public record NackDelayed(DueMessage message, NackMark mark) {}

  /** Messages cancelled or expired: never deliver them again. */
  public record MessagesRemoved(List<byte[]> storageKeys) implements Command {
    public MessagesRemoved {
      storageKeys = List.copyOf(storageKeys);
    }
  }

  public record GetStats(ActorRef<Stats> replyTo) implements Command {}

  /**
   * Answered once the group has taken in everything its topic sent before: a cancel is answered only
   * after every group of the topic has dropped the message (also handled by {@link UniversalFanout}).
   */
  public record Settle(ActorRef<Done> replyTo) implements Command {}

  /** The answer to a {@link DueFeed.CatchUp}: the feed has forwarded everything announced before it. */
  public record CaughtUp(long recoveries) implements Command {}

  /** The group was deleted: its consumers' streams end, saying {@code why}, and the group stops. */
  public record Delete(String why) implements Command {}

  public record Stats(String group, int consumers, int inFlight, int ready, int delayed, DeliveryLateness lateness) {}

  /**
   * Told to the topic: this group is done with these messages. {@code keyed}: some hold an
   * idempotency key, which is free again only once their delete is written, so it is written at once.
   */
  public record Acked(String group, List<byte[]> storageKeys, boolean keyed) {}

  /** A watched consumer stopped (also used by {@link UniversalFanout}). */
  record ConsumerLeft(ActorRef<SubscriberSession.Command> consumer) implements Command {}

  private record DeadLetterDone(Pending pending, Throwable failure) implements Command {}

  /** A message {@link DueBuffer} holds is due (also used by {@link UniversalFanout}). */
  record Wake() implements Command {}

  /** The earliest in-flight deadline came (also used by {@link UniversalFanout}). */
  record InFlightDue() implements Command {}

  private record RequeueDue() implements Command {}

  /** Delivers after the acks and nacks already waiting: one pump for them all (also used by UniversalFanout). */
  record PumpQueued() implements Command {}

  /** Time to ask again whether this replica is current (also used by {@link UniversalFanout}). */
  record ReplicaRecheck() implements Command {}

  /** How often a group whose replica is not current asks again. */
  static final Duration REPLICA_RECHECK = Duration.ofMillis(50);

  public static Behavior<Command> create(GroupContext context, byte[] startAfter) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> new ConsumerGroup(ctx, timers, context, startAfter)));
  }

  private final TimerScheduler<Command> timers;
  private final GroupContext gc;
  private final DueBuffer feed;
  private final GroupMetrics metrics;
  private final CreditRoundRobin<LiveConsumer> consumers = new CreditRoundRobin<>();
  private final InFlightDeliveries inFlight;
  private final Redelivery redelivery;
  /** The consumers by their session: acks, nacks and departures name the session. */
  private final Map<ActorRef<SubscriberSession.Command>, LiveConsumer> bySession = new HashMap<>();
  /** Consumers with deliveries queued in the current pump. */
  private final List<LiveConsumer> queued = new ArrayList<>();
  private final DeliveryLateness.Recorder lateness;
  private final ReplicaCatchUp catchUp;
  private final AckReport acked;
  private boolean pumpQueued;

  private ConsumerGroup(ActorContext<Command> ctx, TimerScheduler<Command> timers, GroupContext gc, byte[] startAfter) {
    super(ctx);
    this.timers = timers;
    this.gc = gc;
    this.feed = new DueBuffer(ctx, gc, startAfter);
    this.metrics = GroupMetrics.acquire(gc.topic(), gc.group());
    this.inFlight = new InFlightDeliveries(consumers, timers, gc.settings().inFlightTimeout(), metrics,
        gc.wakeTimer().clock());
    this.redelivery = new Redelivery(timers, new RequeueDue(), gc, feed);
    this.lateness = new DeliveryLateness.Recorder(metrics.lateness);
    this.catchUp = new ReplicaCatchUp(gc, ctx.getSelf());
    this.acked = new AckReport(gc);
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(AddConsumer.class, this::onAddConsumer)
        .onMessage(AckDeliveries.class, this::onAck)
        .onMessage(NackDeliveries.class, this::onNack)
        .onMessage(Due.class, this::onDue)
        .onMessage(MessagesRemoved.class, this::onMessagesRemoved)
        .onMessage(GetStats.class, this::onGetStats)
        .onMessage(Delete.class, this::onDelete)
        .onMessage(ConsumerLeft.class, this::onConsumerLeft)
        .onMessage(DeadLetterDone.class, this::onDeadLetterDone)
        .onMessage(Wake.class, this::onWake)
        .onMessage(InFlightDue.class, this::onInFlightDue)
        .onMessage(RequeueDue.class, this::onRequeueDue)
        .onMessage(PumpQueued.class, this::onPumpQueued)
        .onMessage(ReplicaRecheck.class, r -> pump())
        .onMessage(Settle.class, this::onSettle)
        .onMessage(CaughtUp.class, c -> {
          catchUp.caughtUp(c.recoveries());
          return pump();
        })
        .onSignal(PostStop.class, s -> onPostStop())
        .build();
  }

  private Behavior<Command> onAddConsumer(AddConsumer add) {
    if (!bySession.containsKey(add.consumer()) && consumers.size() >= gc.maxConsumers()) {
      add.consumer().tell(new SubscriberSession.Refuse(new SubscriberSession.Refusal(
          SubscriberSession.Reason.OVER_LIMIT, "init.group: group '" + gc.group() + "' of topic " + gc.topic()
          + " already has " + consumers.size() + " consumers, the limit (futureq.limits.max-consumers-per-group)")));
      return this;
    }
    if (!bySession.containsKey(add.consumer())) {
      LiveConsumer consumer = new LiveConsumer(add.consumer(), add.firstTag());
      bySession.put(add.consumer(), consumer);
      consumers.add(consumer, add.maxInFlight(), add.maxInFlightBytes());
      getContext().watchWith(add.consumer(), new ConsumerLeft(add.consumer()));
    }
    return pump();
  }

  private Behavior<Command> onAck(AckDeliveries ack) {
    List<InFlightTable.Entry<LiveConsumer>> entries = claim(ack.consumer(), ack.tags());
    for (int i = 0; i < entries.size(); i++) {
      acked.add(entries.get(i).message);
    }
    metrics.acked.increment(entries.size());
    return pumpSoon();
  }

  private Behavior<Command> onNack(NackDeliveries nack) {
    List<InFlightTable.Entry<LiveConsumer>> entries = claim(nack.consumer(), nack.tags());
    metrics.nacked.increment(entries.size());
    redelivery.nacked(entries, nack.requeueDelay());
    return pumpSoon();
  }

  /**
   * Acks and nacks give credit back a few deliveries at a time (one frame each, from each consumer): the pump
   * waits behind those already in the mailbox, so that a batch of them costs one pass and one delivery message
   * per consumer, not one per frame.
   */
  private Behavior<Command> pumpSoon() {
    if (!pumpQueued) {
      pumpQueued = true;
      getContext().getSelf().tell(new PumpQueued());
    }
    return this;
  }

  private Behavior<Command> onPumpQueued(PumpQueued queued) {
    pumpQueued = false;
    acked.send();
    return pump();
  }

  /** Takes the named deliveries out of flight for the consumer that acks or nacks them (if it is still here). */
  private List<InFlightTable.Entry<LiveConsumer>> claim(ActorRef<SubscriberSession.Command> session, TagRanges tags) {
    LiveConsumer consumer = bySession.get(session);
    if (consumer == null) {
      return List.of();
    }
    return inFlight.claim(consumer, tags);
  }

  private Behavior<Command> onDue(Due due) {
    feed.onDue(due);
    redelivery.holdNackDelayed(due.delayed());
    return pump();
  }

  /**
   * Cancelled or expired messages are never delivered again: not from the buffer, not after a nack
   * delay, and not after an in-flight delivery times out, is nacked or its consumer leaves. A
   * delivery in flight is not recalled, but it gives its credit back and its ack is ignored.
   */
  private Behavior<Command> onMessagesRemoved(MessagesRemoved removed) {
    feed.onRemoved(removed.storageKeys());
    Set<ByteBuffer> keys = DueBuffer.keySet(removed.storageKeys());
    redelivery.removed(keys);
    return inFlight.removeMessages(keys) ? pump() : this;
  }

  private Behavior<Command> onSettle(Settle settle) {
    settle.replyTo().tell(Done.getInstance());
    return this;
  }

  private Behavior<Command> onGetStats(GetStats get) {
    get.replyTo().tell(new Stats(gc.group(), consumers.size(), inFlight.size(), feed.buffered(), redelivery.waiting(),
        lateness.summary()));
    return this;
  }

  private Behavior<Command> onDelete(Delete delete) {
    SubscriberSession.Refuse end = new SubscriberSession.Refuse(
        new SubscriberSession.Refusal(SubscriberSession.Reason.DELETED, delete.why()));
    bySession.keySet().forEach(session -> session.tell(end));
    return Behaviors.stopped();
  }

  private Behavior<Command> onConsumerLeft(ConsumerLeft left) {
    LiveConsumer consumer = bySession.remove(left.consumer());
    if (consumer == null) {
      return this;
    }
    consumers.remove(consumer);
    List<InFlightTable.Entry<LiveConsumer>> held = inFlight.removeConsumer(consumer);
    for (int i = held.size() - 1; i >= 0; i--) {
      feed.ready.addFirst(new Pending(held.get(i).message, held.get(i).attempt));
    }
    return pump();
  }

  private Behavior<Command> onDeadLetterDone(DeadLetterDone done) {
    if (done.failure() != null) {
      getContext().getLog().warn("moving message {} of topic {} to its dead-letter topic failed; retrying",
          done.pending().message().id(), gc.topic(), done.failure());
      redelivery.retryDeadLetter(done.pending());
    } else {
      metrics.deadLettered.increment();
    }
    return this;
  }

  private Behavior<Command> onWake(Wake wake) {
    return pump();
  }

  private Behavior<Command> onInFlightDue(InFlightDue due) {
    List<InFlightTable.Entry<LiveConsumer>> expired = inFlight.expire(gc.wakeTimer().clock().millis());
    for (int i = expired.size() - 1; i >= 0; i--) {
      feed.ready.addFirst(new Pending(expired.get(i).message, expired.get(i).attempt));
    }
    return pump();
  }

  private Behavior<Command> onRequeueDue(RequeueDue due) {
    redelivery.requeueDue();
    return pump();
  }

  /** Hands ready messages to consumers with credit, then asks the feed for more if the buffer runs low. */
  private Behavior<Command> pump() {
    if (!gc.eventLog().current()) {
      // This replica lost touch with the Raft group (paused, cut off): it may be missing committed
      // cancels and acks, so nothing is delivered from it until it has caught up.
      timers.startSingleTimer("replica-recheck", new ReplicaRecheck(), REPLICA_RECHECK);
      return this;
    }
    if (!catchUp.caughtUp()) {
      return this;
    }
    Instant clock = gc.wakeTimer().clock().instant();
    long now = clock.toEpochMilli();
    long nowUs = DeliveryLateness.epochMicros(clock);
    int max = gc.settings().maxDeliveries();
    Pending p;
    while (consumers.anyCredit() && (p = feed.nextDue(now)) != null) {
      if (p.message().expiredAt(now)) {
        continue;
      }
      if (max > 0 && p.deliveries() >= max && !gc.deadLetterTopic()) {
        deadLetter(p, now);
        continue;
      }
      LiveConsumer consumer = consumers.take(p.message().payloadBytes());
      if (consumer == null) {
        // No consumer has room for its bytes yet: it waits, first in line, for acks.
        feed.ready.addFirst(p);
        break;
      }
      deliver(consumer, p, now, nowUs);
    }
    sendOutbox();
    feed.askIfLow(!consumers.isEmpty());
    return this;
  }

  private void deliver(LiveConsumer consumer, Pending p, long now, long nowUs) {
    int attempt = p.deliveries() + 1;
    if (consumer.outbox.isEmpty()) {
      queued.add(consumer);
    }
    long tag = consumer.queue(attempt, p.message());
    inFlight.add(consumer, tag, p.message(), attempt, now);
    metrics.delivered.increment();
    if (attempt == 1) {
      lateness.record(nowUs, p.message().message().getDueMs());
    } else {
      metrics.redelivered.increment();
    }
  }

  /** One message per consumer per pump: deliveries travel in batches, not one actor message each. */
  private void sendOutbox() {
    queued.forEach(LiveConsumer::flush);
    queued.clear();
  }

  private void deadLetter(Pending p, long now) {
    getContext().pipeToSelf(gc.eventLog().append(DeadLetters.of(gc, p, now)),
        (ok, failure) -> new DeadLetterDone(p, failure));
  }

  private Behavior<Command> onPostStop() {
    acked.send();
    feed.stop();
    metrics.release(inFlight.size());
    return this;
  }

  /**
   * Timers cannot wait longer than about 24 days, while due times may be years ahead, and a wait
   * measured on the monotonic clock drifts from the wall clock over hours: a long wait fires early
   * (after at most an hour), finds nothing due, and is armed again.
   */
  static Duration timerDelay(long atMs, long nowMs) {
    return Duration.ofMillis(Math.min(DueFeed.MAX_TIMER_MS, Math.max(0, atMs - nowMs)));
  }
}
