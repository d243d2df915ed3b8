package io.futureq.group;

import io.futureq.metrics.GroupMetrics;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * A topic's universal subscribers (no group): each message that becomes due while they are
 * connected goes, best effort, to every one of them that has credit. Nothing is redelivered: a
 * timed-out or nacked copy only gives its credit back. An ack is reported to the topic, which
 * deletes the message when the topic has no groups. Stops when its last subscriber leaves. Speaks
 * the {@link ConsumerGroup} protocol, so sessions and the topic treat both alike.
 */
public final class UniversalFanout extends AbstractBehavior<ConsumerGroup.Command> {

  /** @param startAfter copies start with messages due after this key (the subscription's start) */
  public static Behavior<ConsumerGroup.Command> create(GroupContext context, byte[] startAfter) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> new UniversalFanout(ctx, timers, context,
        startAfter)));
  }

  private final TimerScheduler<ConsumerGroup.Command> timers;
  private final GroupContext gc;
  private final DueBuffer feed;
  private final GroupMetrics metrics;
  private final CreditRoundRobin<LiveConsumer> subscribers = new CreditRoundRobin<>();
  private final InFlightTable<LiveConsumer> inFlight = new InFlightTable<>();
  private final Map<ActorRef<SubscriberSession.Command>, LiveConsumer> bySession = new HashMap<>();
  /** Subscribers with copies queued in the current pump. */
  private final List<LiveConsumer> queued = new ArrayList<>();
  private final DeliveryLateness.Recorder lateness;
  private boolean inFlightTimerArmed;
  private final ReplicaCatchUp catchUp;
  private final AckReport acked;
  private boolean pumpQueued;
  /** Copies made so far: tells whether a message found any subscriber with room. */
  private int queuedCopies;

  private UniversalFanout(ActorContext<ConsumerGroup.Command> ctx, TimerScheduler<ConsumerGroup.Command> timers,
      GroupContext gc, byte[] startAfter) {
    super(ctx);
    this.timers = timers;
    this.gc = gc;
    this.feed = new DueBuffer(ctx, gc, startAfter);
    this.metrics = GroupMetrics.acquire(gc.topic(), gc.group());
    this.lateness = new DeliveryLateness.Recorder(metrics.lateness);
    this.catchUp = new ReplicaCatchUp(gc, ctx.getSelf());
    this.acked = new AckReport(gc);
  }

  @Override
  public Receive<ConsumerGroup.Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(ConsumerGroup.AddConsumer.class, this::onAddConsumer)
        .onMessage(ConsumerGroup.AckDeliveries.class, this::onAck)
        .onMessage(ConsumerGroup.NackDeliveries.class, n -> settle(n.consumer(), n.tags()))
        .onMessage(ConsumerGroup.Due.class, this::onDue)
        .onMessage(ConsumerGroup.MessagesRemoved.class, this::onMessagesRemoved)
        .onMessage(ConsumerGroup.GetStats.class, this::onGetStats)
        .onMessage(ConsumerGroup.ConsumerLeft.class, this::onSubscriberLeft)
        .onMessage(ConsumerGroup.Wake.class, w -> pump())
        .onMessage(ConsumerGroup.PumpQueued.class, q -> {
          pumpQueued = false;
          acked.send();
          return pump();
        })
        .onMessage(ConsumerGroup.InFlightDue.class, this::onInFlightDue)
        .onMessage(ConsumerGroup.ReplicaRecheck.class, r -> pump())
        .onMessage(ConsumerGroup.Settle.class, s -> {
          s.replyTo().tell(Done.getInstance());
          return this;
        })
        .onMessage(ConsumerGroup.CaughtUp.class, c -> {
          catchUp.caughtUp(c.recoveries());
          return pump();
        })
        .onSignal(PostStop.class, s -> {
          acked.send();
          feed.stop();
          metrics.release(inFlight.size());
          return this;
        })
        .build();
  }

  private Behavior<ConsumerGroup.Command> onAddConsumer(ConsumerGroup.AddConsumer add) {
    if (bySession.containsKey(add.consumer())) {
      return pump();
    }
    if (subscribers.size() >= gc.maxConsumers()) {
      add.consumer().tell(new SubscriberSession.Refuse(new SubscriberSession.Refusal(
          SubscriberSession.Reason.OVER_LIMIT, "init.group: topic " + gc.topic() + " already has "
          + subscribers.size() + " universal subscribers, the limit (futureq.limits.max-consumers-per-group)")));
      return this;
    }
    LiveConsumer subscriber = new LiveConsumer(add.consumer(), add.firstTag());
    bySession.put(add.consumer(), subscriber);
    subscribers.add(subscriber, add.maxInFlight(), add.maxInFlightBytes());
    getContext().watchWith(add.consumer(), new ConsumerGroup.ConsumerLeft(add.consumer()));
    return pump();
  }

  private Behavior<ConsumerGroup.Command> onAck(ConsumerGroup.AckDeliveries ack) {
    List<InFlightTable.Entry<LiveConsumer>> taken = take(ack.consumer(), ack.tags());
    for (int i = 0; i < taken.size(); i++) {
      acked.add(taken.get(i).message);
    }
    metrics.acked.increment(taken.size());
    return pumpSoon();
  }

  /** A nack only gives the credit back: copies are not redelivered. */
  private Behavior<ConsumerGroup.Command> settle(ActorRef<SubscriberSession.Command> consumer, TagRanges tags) {
    metrics.nacked.increment(take(consumer, tags).size());
    return pumpSoon();
  }

  /** As in {@link ConsumerGroup}: one pump for the acks and nacks already waiting, not one per frame. */
  private Behavior<ConsumerGroup.Command> pumpSoon() {
    if (!pumpQueued) {
      pumpQueued = true;
      getContext().getSelf().tell(new ConsumerGroup.PumpQueued());
    }
    return this;
  }

  private List<InFlightTable.Entry<LiveConsumer>> take(ActorRef<SubscriberSession.Command> session, TagRanges tags) {
    LiveConsumer consumer = bySession.get(session);
    if (consumer == null) {
      return List.of();
    }
    List<InFlightTable.Entry<LiveConsumer>> taken = new ArrayList<>();
    for (int r = 0; r < tags.size(); r++) {
      taken.addAll(inFlight.removeRange(consumer, tags.first(r), tags.last(r)));
    }
    long bytes = 0;
    for (int i = 0; i < taken.size(); i++) {
      bytes += taken.get(i).message.payloadBytes();
    }
    subscribers.release(consumer, taken.size(), bytes);
    metrics.inFlight.decrement(taken.size());
    return taken;
  }

  /** Universal subscribers have no nack marks: a due chunk brings nothing delayed for them. */
  private Behavior<ConsumerGroup.Command> onDue(ConsumerGroup.Due due) {
    feed.onDue(due);
    return pump();
  }

  private Behavior<ConsumerGroup.Command> onMessagesRemoved(ConsumerGroup.MessagesRemoved removed) {
    feed.onRemoved(removed.storageKeys());
    return this;
  }

  private Behavior<ConsumerGroup.Command> onGetStats(ConsumerGroup.GetStats get) {
    get.replyTo().tell(new ConsumerGroup.Stats(gc.group(), subscribers.size(), inFlight.size(), feed.buffered(),
        0, lateness.summary()));
    return this;
  }

  private Behavior<ConsumerGroup.Command> onSubscriberLeft(ConsumerGroup.ConsumerLeft left) {
    LiveConsumer subscriber = bySession.remove(left.consumer());
    if (subscriber == null) {
      return this;
    }
    subscribers.remove(subscriber);
    metrics.inFlight.decrement(inFlight.removeConsumer(subscriber).size());
    return subscribers.isEmpty() ? Behaviors.stopped() : pump();
  }

  private Behavior<ConsumerGroup.Command> onInFlightDue(ConsumerGroup.InFlightDue due) {
    inFlightTimerArmed = false;
    for (InFlightTable.Entry<LiveConsumer> e : inFlight.removeExpired(gc.wakeTimer().clock().millis())) {
      subscribers.release(e.consumer, 1, e.message.payloadBytes());
      metrics.inFlight.decrement();
    }
    armInFlightTimer(inFlight.earliestDeadline());
    return pump();
  }

  /** Copies each ready message to every subscriber with credit, then asks the feed for more if the buffer runs low. */
  private Behavior<ConsumerGroup.Command> pump() {
    if (!gc.eventLog().current()) {
      // As in ConsumerGroup: a replica that lost touch with the Raft group delivers nothing until current.
      timers.startSingleTimer(new ConsumerGroup.ReplicaRecheck(), ConsumerGroup.REPLICA_RECHECK);
      return this;
    }
    if (!catchUp.caughtUp()) {
      return this;
    }
    Instant clock = gc.wakeTimer().clock().instant();
    long now = clock.toEpochMilli();
    long nowUs = DeliveryLateness.epochMicros(clock);
    Pending next;
    while (subscribers.anyCredit() && (next = feed.nextDue(now)) != null) {
      Pending p = next;
      if (!p.message().expiredAt(now) && !copyToEach(p, now, nowUs)) {
        // No subscriber has room for its bytes yet: it waits, first in line, for acks.
        feed.ready.addFirst(p);
        break;
      }
    }
    queued.forEach(LiveConsumer::flush);
    queued.clear();
    feed.askIfLow(!subscribers.isEmpty());
    return this;
  }

  /** Copies to each subscriber with room for the message; false if none had room. */
  private boolean copyToEach(Pending p, long now, long nowUs) {
    int before = queuedCopies;
    subscribers.takeEach(p.message().payloadBytes(), s -> copy(s, p, now, nowUs));
    return queuedCopies != before;
  }

  private void copy(LiveConsumer subscriber, Pending p, long now, long nowUs) {
    queuedCopies++;
    long deadline = now + gc.settings().inFlightTimeout().toMillis();
    if (subscriber.outbox.isEmpty()) {
      queued.add(subscriber);
    }
    long tag = subscriber.queue(1, p.message());
    inFlight.add(new InFlightTable.Entry<>(subscriber, tag, p.message(), 1, deadline));
    metrics.delivered.increment();
    metrics.inFlight.increment();
    lateness.record(nowUs, p.message().message().getDueMs());
    armInFlightTimer(deadline);
  }

  private void armInFlightTimer(long atMs) {
    if (!inFlightTimerArmed && atMs != Long.MAX_VALUE) {
      inFlightTimerArmed = true;
      timers.startSingleTimer(new ConsumerGroup.InFlightDue(),
          ConsumerGroup.timerDelay(atMs, gc.wakeTimer().clock().millis()));
    }
  }
}
