package io.futureq.group;

import io.futureq.serialization.CborSerializable;
import io.futureq.api.grpc.Delivery;
import io.futureq.metrics.GroupMetrics;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * One group of one topic: reads due messages from its own cursor, hands each to one live consumer
 * with credit (round-robin), keeps it in flight until acked, and delivers it again after the
 * in-flight timeout, a nack or the consumer's loss. The universal subscribers form a group with an
 * empty name that copies each message to every consumer with credit and never redelivers.
 */
public final class ConsumerGroup extends AbstractBehavior<ConsumerGroup.Command> {

  public sealed interface Command extends CborSerializable {}

  public record AddConsumer(ActorRef<SubscriberSession.Command> consumer, int maxInFlight) implements Command {}

  public record AckDeliveries(ActorRef<SubscriberSession.Command> consumer, List<DeliveryTag> tags)
      implements Command {
    public AckDeliveries {
      tags = List.copyOf(tags);
    }
  }

  public record NackDelivery(ActorRef<SubscriberSession.Command> consumer, DeliveryTag tag, Duration requeueDelay)
      implements Command {}

  /** Messages committed at log {@code index}. */
  public record MessagesStored(long index, List<DueMessage> messages) implements Command {
    public MessagesStored {
      messages = List.copyOf(messages);
    }
  }

  /** Messages cancelled or expired: never deliver them again. */
  public record MessagesRemoved(List<byte[]> storageKeys) implements Command {
    public MessagesRemoved {
      storageKeys = List.copyOf(storageKeys);
    }
  }

  public record GetStats(ActorRef<Stats> replyTo) implements Command {}

  public record Stats(String group, int consumers, int inFlight, int ready, int delayed) {}

  /** Told to the topic: this group is done with these messages. */
  public record Acked(String group, List<byte[]> storageKeys) {}

  private record ConsumerLeft(ActorRef<SubscriberSession.Command> consumer) implements Command {}

  private record ReadDone(DueReader.Chunk chunk, Throwable failure) implements Command {}

  private record DeadLetterDone(Pending pending, Throwable failure) implements Command {}

  private record Wake() implements Command {}

  private record InFlightDue() implements Command {}

  private record RequeueDue() implements Command {}

  public static Behavior<Command> create(GroupContext context, byte[] startAfter) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> new ConsumerGroup(ctx, timers, context, startAfter)));
  }

  static final long MAX_TIMER_MS = Duration.ofHours(1).toMillis();

  private final TimerScheduler<Command> timers;
  private final GroupContext gc;
  private final DueReader reader;
  private final GroupMetrics metrics;
  private final CreditRoundRobin<ActorRef<SubscriberSession.Command>> consumers = new CreditRoundRobin<>();
  private final ArrayDeque<Pending> ready = new ArrayDeque<>();
  private final InFlightTable<ActorRef<SubscriberSession.Command>> inFlight = new InFlightTable<>();
  private final RequeueQueue requeue = new RequeueQueue();
  private final DueCursor due;
  private final long incarnation = ThreadLocalRandom.current().nextLong() >>> 1;
  private final Map<ActorRef<SubscriberSession.Command>, List<Delivery>> outbox = new LinkedHashMap<>();
  /** Deliveries that timed out, by sequence number: their credit returns when the consumer answers them. */
  private final Map<Long, ActorRef<SubscriberSession.Command>> timedOut = new java.util.HashMap<>();
  private long nextSeq;
  private long inFlightTimerAt = Long.MAX_VALUE;
  private long requeueTimerAt = Long.MAX_VALUE;

  private ConsumerGroup(ActorContext<Command> ctx, TimerScheduler<Command> timers, GroupContext gc, byte[] startAfter) {
    super(ctx);
    this.timers = timers;
    this.gc = gc;
    this.reader = new DueReader(gc.store(), gc.bucketMs());
    this.metrics = new GroupMetrics(gc.topic(), gc.group());
    this.due = new DueCursor(reader, startAfter);
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(AddConsumer.class, this::onAddConsumer)
        .onMessage(AckDeliveries.class, this::onAck)
        .onMessage(NackDelivery.class, this::onNack)
        .onMessage(MessagesStored.class, this::onMessagesStored)
        .onMessage(MessagesRemoved.class, this::onMessagesRemoved)
        .onMessage(GetStats.class, this::onGetStats)
        .onMessage(ConsumerLeft.class, this::onConsumerLeft)
        .onMessage(ReadDone.class, this::onReadDone)
        .onMessage(DeadLetterDone.class, this::onDeadLetterDone)
        .onMessage(Wake.class, this::onWake)
        .onMessage(InFlightDue.class, this::onInFlightDue)
        .onMessage(RequeueDue.class, this::onRequeueDue)
        .build();
  }

  private Behavior<Command> onAddConsumer(AddConsumer add) {
    if (!consumers.contains(add.consumer()) && consumers.size() >= gc.maxConsumers()) {
      add.consumer().tell(new SubscriberSession.Refuse("init.group: group '" + gc.group() + "' of topic "
          + gc.topic() + " already has " + consumers.size() + " consumers, the limit "
          + "(futureq.limits.max-consumers-per-group)", true));
      return this;
    }
    if (!consumers.contains(add.consumer())) {
      consumers.add(add.consumer(), add.maxInFlight());
      getContext().watchWith(add.consumer(), new ConsumerLeft(add.consumer()));
    }
    return pump();
  }

  private Behavior<Command> onAck(AckDeliveries ack) {
    List<byte[]> done = new ArrayList<>();
    for (DeliveryTag tag : ack.tags()) {
      InFlightTable.Entry<ActorRef<SubscriberSession.Command>> entry = claim(ack.consumer(), tag);
      if (entry == null) {
        continue;
      }
      metrics.acked.increment();
      done.add(entry.message().storageKey());
    }
    if (!done.isEmpty()) {
      gc.ackSink().tell(new Acked(gc.group(), done));
    }
    return pump();
  }

  private Behavior<Command> onNack(NackDelivery nack) {
    InFlightTable.Entry<ActorRef<SubscriberSession.Command>> entry = claim(nack.consumer(), nack.tag());
    if (entry != null) {
      metrics.nacked.increment();
      if (!gc.universal()) {
        Pending again = new Pending(entry.message(), entry.attempt());
        if (nack.requeueDelay().isZero()) {
          ready.addFirst(again);
        } else {
          requeue.add(again, System.currentTimeMillis() + nack.requeueDelay().toMillis());
          armRequeueTimer();
        }
      }
    }
    return pump();
  }

  /**
   * Takes a delivery out of flight for the consumer that acks or nacks it. Tags from an earlier
   * incarnation or already settled (acked, timed out) are stale and ignored; a tag never handed to
   * this consumer is refused, which ends its stream.
   */
  private InFlightTable.Entry<ActorRef<SubscriberSession.Command>> claim(
      ActorRef<SubscriberSession.Command> consumer, DeliveryTag tag) {
    if (tag.incarnation() != incarnation) {
      return null;
    }
    InFlightTable.Entry<ActorRef<SubscriberSession.Command>> entry = inFlight.get(tag.seq());
    if (tag.seq() >= nextSeq || (entry != null && !entry.consumer().equals(consumer))) {
      consumer.tell(new SubscriberSession.Refuse("unknown delivery tag '" + tag + "': it was never delivered on "
          + "this stream", false));
      return null;
    }
    if (entry == null) {
      if (consumer.equals(timedOut.remove(tag.seq()))) {
        // A late answer to a timed-out delivery: the consumer is alive after all, its credit returns.
        consumers.release(consumer);
      }
      return null;
    }
    inFlight.remove(tag.seq());
    consumers.release(consumer);
    metrics.inFlight.decrement();
    return entry;
  }

  private Behavior<Command> onMessagesStored(MessagesStored stored) {
    long now = System.currentTimeMillis();
    scheduleWake(due.stored(stored, now, m -> ready.addLast(new Pending(m, 0))), now);
    return pump();
  }

  private Behavior<Command> onMessagesRemoved(MessagesRemoved removed) {
    Set<ByteBuffer> keys = new HashSet<>();
    removed.storageKeys().forEach(k -> keys.add(ByteBuffer.wrap(k)));
    ready.removeIf(p -> keys.contains(ByteBuffer.wrap(p.message().storageKey())));
    requeue.removeIf(p -> keys.contains(ByteBuffer.wrap(p.message().storageKey())));
    return this;
  }

  private Behavior<Command> onGetStats(GetStats get) {
    get.replyTo().tell(new Stats(gc.group(), consumers.size(), inFlight.size(), ready.size(), requeue.size()));
    return this;
  }

  private Behavior<Command> onConsumerLeft(ConsumerLeft left) {
    consumers.remove(left.consumer());
    timedOut.values().removeIf(left.consumer()::equals);
    List<InFlightTable.Entry<ActorRef<SubscriberSession.Command>>> held = inFlight.removeConsumer(left.consumer());
    metrics.inFlight.decrement(held.size());
    if (!gc.universal()) {
      for (int i = held.size() - 1; i >= 0; i--) {
        ready.addFirst(new Pending(held.get(i).message(), held.get(i).attempt()));
      }
    } else if (consumers.isEmpty()) {
      return Behaviors.stopped();
    }
    return pump();
  }

  private Behavior<Command> onReadDone(ReadDone done) {
    long now = System.currentTimeMillis();
    if (done.failure() != null) {
      getContext().getLog().warn("reading due messages of topic {} group '{}' failed; retrying", gc.topic(),
          gc.group(), done.failure());
      scheduleWake(due.readFailed(now + gc.topicSettings().retryBackoff().toMillis()), now);
      return this;
    }
    done.chunk().messages().forEach(m -> ready.addLast(new Pending(m, 0)));
    scheduleWake(due.readDone(done.chunk(), now, m -> ready.addLast(new Pending(m, 0))), now);
    return pump();
  }

  private Behavior<Command> onDeadLetterDone(DeadLetterDone done) {
    if (done.failure() != null) {
      getContext().getLog().warn("moving message {} of topic {} to its dead-letter topic failed; retrying",
          done.pending().message().id(), gc.topic(), done.failure());
      requeue.add(done.pending(), System.currentTimeMillis() + gc.topicSettings().retryBackoff().toMillis());
      armRequeueTimer();
    } else {
      metrics.deadLettered.increment();
    }
    return this;
  }

  private Behavior<Command> onWake(Wake wake) {
    due.woke();
    return pump();
  }

  private Behavior<Command> onInFlightDue(InFlightDue due) {
    inFlightTimerAt = Long.MAX_VALUE;
    List<InFlightTable.Entry<ActorRef<SubscriberSession.Command>>> expired =
        inFlight.removeExpired(System.currentTimeMillis());
    metrics.inFlight.decrement(expired.size());
    for (InFlightTable.Entry<ActorRef<SubscriberSession.Command>> e : expired) {
      // The credit stays taken until the consumer answers that delivery: a consumer that stopped
      // reading runs out of credit instead of being handed the redeliveries again and again.
      if (gc.universal()) {
        consumers.release(e.consumer());
      } else {
        timedOut.put(e.seq(), e.consumer());
      }
    }
    if (!gc.universal()) {
      for (int i = expired.size() - 1; i >= 0; i--) {
        ready.addFirst(new Pending(expired.get(i).message(), expired.get(i).attempt()));
      }
    }
    armInFlightTimer();
    return pump();
  }

  private Behavior<Command> onRequeueDue(RequeueDue due) {
    requeueTimerAt = Long.MAX_VALUE;
    List<Pending> back = requeue.takeReady(System.currentTimeMillis());
    for (int i = back.size() - 1; i >= 0; i--) {
      ready.addFirst(back.get(i));
    }
    armRequeueTimer();
    return pump();
  }

  /** Hands ready messages to consumers with credit, then reads more if the buffer runs low. */
  private Behavior<Command> pump() {
    long now = System.currentTimeMillis();
    while (!ready.isEmpty() && consumers.anyCredit()) {
      Pending p = ready.pollFirst();
      if (p.message().expiredAt(now)) {
        continue;
      }
      int max = gc.settings().maxDeliveries();
      if (!gc.universal() && max > 0 && p.deliveries() >= max && !gc.deadLetterTopic()) {
        deadLetter(p, now);
        continue;
      }
      if (gc.universal()) {
        consumers.takeEach().forEach(c -> deliver(c, p, now));
      } else {
        deliver(consumers.take(), p, now);
      }
    }
    sendOutbox();
    maybeRead(now);
    return this;
  }

  private void deliver(ActorRef<SubscriberSession.Command> consumer, Pending p, long now) {
    long seq = nextSeq++;
    int attempt = p.deliveries() + 1;
    inFlight.add(new InFlightTable.Entry<>(seq, p.message(), attempt, consumer,
        now + gc.settings().inFlightTimeout().toMillis()));
    outbox.computeIfAbsent(consumer, c -> new ArrayList<>())
        .add(Deliveries.of(gc, p.message(), new DeliveryTag(incarnation, seq), attempt));
    metrics.delivered.increment();
    metrics.inFlight.increment();
    if (attempt == 1) {
      metrics.lateness.record(Math.max(0, now - p.message().message().getDueMs()));
    } else {
      metrics.redelivered.increment();
    }
    armInFlightTimer();
  }

  /** One message per consumer per pump: deliveries travel in batches, not one actor message each. */
  private void sendOutbox() {
    outbox.forEach((consumer, deliveries) -> consumer.tell(new SubscriberSession.Deliver(deliveries)));
    outbox.clear();
  }

  private void deadLetter(Pending p, long now) {
    getContext().pipeToSelf(gc.eventLog().append(Deliveries.deadLetter(gc, p, now)),
        (ok, failure) -> new DeadLetterDone(p, failure));
  }

  private void maybeRead(long now) {
    if (consumers.isEmpty() || ready.size() >= gc.topicSettings().readChunk() || !due.wantsRead(now)) {
      return;
    }
    due.readStarted();
    byte[] from = due.position();
    String ackGroup = gc.universal() ? null : gc.group();
    CompletableFuture<DueReader.Chunk> read = CompletableFuture.supplyAsync(
        () -> reader.read(gc.topic(), from, now, gc.topicSettings().readChunk(), ackGroup), gc.storageExecutor());
    getContext().pipeToSelf(read, ReadDone::new);
  }

  private void scheduleWake(long atMs, long now) {
    if (atMs != DueCursor.NO_WAKE) {
      timers.startSingleTimer("wake", new Wake(), timerDelay(atMs, now));
    }
  }

  private void armInFlightTimer() {
    long at = inFlight.earliestDeadline();
    if (at != Long.MAX_VALUE && at < inFlightTimerAt) {
      inFlightTimerAt = at;
      timers.startSingleTimer("in-flight", new InFlightDue(), timerDelay(at, System.currentTimeMillis()));
    }
  }

  private void armRequeueTimer() {
    long at = requeue.earliest();
    if (at != Long.MAX_VALUE && at < requeueTimerAt) {
      requeueTimerAt = at;
      timers.startSingleTimer("requeue", new RequeueDue(), timerDelay(at, System.currentTimeMillis()));
    }
  }

  /**
   * Pekko timers cannot wait longer than about 24 days, while due times may be years ahead: a long
   * wait fires early, finds nothing due, and is armed again.
   */
  static Duration timerDelay(long atMs, long nowMs) {
    return Duration.ofMillis(Math.min(MAX_TIMER_MS, Math.max(0, atMs - nowMs)));
  }
}
