package io.futureq.group;

import io.futureq.serialization.CborSerializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.BehaviorBuilder;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * One Subscribe stream: joins its group, passes deliveries out and acks and nacks in. Delivery tags
 * count 1, 2, 3, ... over the whole stream. If the group goes away (its topic moved or restarted)
 * the session joins again, numbering on; acks of tags from before are stale and dropped, since the
 * new group redelivers whatever the old one had in flight.
 *
 * <p>Acks are passed on per batch, not per frame: a client may send one frame per ack (any gRPC client
 * may), and the group's cost is per message it gets. The acks of every frame that reached the session
 * before it next turns to its mailbox's end go to the group as one message, their tags gathered into
 * ranges; a nack first sends the acks gathered before it, so the group sees them in the client's order.
 */
public final class SubscriberSession {

  public sealed interface Command extends CborSerializable {}

  /** The client is done with these deliveries. */
  public record Ack(TagRanges tags) implements Command {}

  /** The client wants these delivered again after {@code requeueDelay}. */
  public record Nack(TagRanges tags, Duration requeueDelay) implements Command {}

  /** The gRPC edge refused a frame from the client: the stream ends. */
  public record FrameRefused(Refusal refusal) implements Command {}

  /** The client closed its side, or the call ended. */
  public record StreamEnded() implements Command {}

  /** Deliveries for this consumer, in order, tagged by the group. */
  public record Deliver(List<GroupDelivery> deliveries) implements Command {
    public Deliver {
      deliveries = List.copyOf(deliveries);
    }
  }

  /** The group refused the consumer (a limit): the stream ends. */
  public record Refuse(Refusal refusal) implements Command {}

  private record Attached(ActorRef<ConsumerGroup.Command> group, Throwable failure) implements Command {}

  private record GroupLost() implements Command {}

  private record RetryJoin() implements Command {}

  /** Sends the acks gathered so far: queued behind the frames that were already waiting. */
  private record FlushAcks() implements Command {}

  /** Why a stream ends early; the gRPC edge maps each reason to a status. */
  public enum Reason { BAD_FRAME, UNKNOWN_TAG, ALREADY_SUBSCRIBED, OVER_LIMIT, UNAVAILABLE, DELETED }

  public record Refusal(Reason reason, String message) {}

  /** What the session writes to the response stream. */
  public sealed interface Output {}

  /** The consumer is in its group: deliveries may follow. */
  public record Subscribed(String topic, String group, int maxInFlight, long maxInFlightBytes) implements Output {}

  public record Emit(List<GroupDelivery> deliveries) implements Output {}

  public record Close() implements Output {}

  public record Fail(Refusal refusal) implements Output {}

  /** A validated init frame, with the credit in force (messages and payload bytes held unacked). */
  public record Init(String topic, String group, int maxInFlight, long maxInFlightBytes, Duration rejoinDelay) {}

  public static Behavior<Command> create(Init init, GroupDirectory directory, ActorRef<Output> out) {
    return Behaviors.setup(ctx -> new SubscriberSession(ctx, init, directory, out).joining(0));
  }

  /** Joins retried after a failed one before the stream ends as unavailable. */
  static final int MAX_REJOINS = 20;

  private final ActorContext<Command> ctx;
  private final Init init;
  private final GroupDirectory directory;
  private final ActorRef<Output> out;
  private final List<Command> early = new ArrayList<>();
  /** Acks of the current group attachment not passed on yet. */
  private final TagRanges.Gather acks = new TagRanges.Gather();
  private boolean flushQueued;
  /** The highest tag sent on this stream. */
  private long lastTag;
  /** The first tag of the current group attachment: lower tags belong to a group that is gone. */
  private long attachedFrom = 1;
  private boolean subscribed;
  private boolean ended;

  private SubscriberSession(ActorContext<Command> ctx, Init init, GroupDirectory directory, ActorRef<Output> out) {
    this.ctx = ctx;
    this.init = init;
    this.directory = directory;
    this.out = out;
  }

  private Behavior<Command> joining(int attempt) {
    ConsumerGroup.AddConsumer add =
        new ConsumerGroup.AddConsumer(ctx.getSelf(), init.maxInFlight(), init.maxInFlightBytes(), attachedFrom);
    ctx.pipeToSelf(directory.attach(init.topic(), init.group(), add), Attached::new);
    return whileWaiting(Behaviors.receive(Command.class).onMessage(Attached.class, a -> onAttached(a, attempt)));
  }

  private Behavior<Command> retrying(int attempt) {
    return Behaviors.withTimers(t -> {
      t.startSingleTimer(new RetryJoin(), init.rejoinDelay());
      return whileWaiting(Behaviors.receive(Command.class).onMessage(RetryJoin.class, r -> joining(attempt + 1)));
    });
  }

  /** Until the group is known, frames wait; deliveries of a group that took the consumer pass. */
  private Behavior<Command> whileWaiting(BehaviorBuilder<Command> builder) {
    return builder
        .onMessage(Ack.class, this::keepForLater)
        .onMessage(Nack.class, this::keepForLater)
        .onMessage(FrameRefused.class, f -> fail(f.refusal()))
        .onMessage(StreamEnded.class, e -> end())
        .onMessage(Deliver.class, this::onDeliver)
        .onMessage(Refuse.class, r -> fail(r.refusal()))
        .onMessage(GroupLost.class, l -> Behaviors.same())
        .onMessage(Attached.class, a -> Behaviors.same())
        .onMessage(RetryJoin.class, r -> Behaviors.same())
        .onMessage(FlushAcks.class, f -> {
          flushQueued = false;
          return Behaviors.same();
        })
        .onSignal(PostStop.class, s -> onPostStop())
        .build();
  }

  private Behavior<Command> keepForLater(Command frame) {
    early.add(frame);
    return Behaviors.same();
  }

  private Behavior<Command> onAttached(Attached attached, int attempt) {
    if (attached.failure() != null) {
      if (attempt >= MAX_REJOINS) {
        return fail(new Refusal(Reason.UNAVAILABLE, "cannot join group '" + init.group() + "' of topic "
            + init.topic() + ": " + attached.failure().getMessage()));
      }
      return retrying(attempt);
    }
    ActorRef<ConsumerGroup.Command> group = attached.group();
    ctx.watchWith(group, new GroupLost());
    announceSubscribed();
    for (Command frame : early) {
      Behavior<Command> next = onFrame(group, frame);
      if (next != null) {
        return next;
      }
    }
    early.clear();
    return serving(group);
  }

  private Behavior<Command> serving(ActorRef<ConsumerGroup.Command> group) {
    return Behaviors.receive(Command.class)
        .onMessage(Deliver.class, this::onDeliver)
        .onMessage(Ack.class, a -> orSame(onFrame(group, a)))
        .onMessage(Nack.class, n -> orSame(onFrame(group, n)))
        .onMessage(FrameRefused.class, f -> fail(f.refusal()))
        .onMessage(Refuse.class, r -> fail(r.refusal()))
        .onMessage(FlushAcks.class, f -> {
          flushQueued = false;
          flushAcks(group);
          return Behaviors.same();
        })
        .onMessage(GroupLost.class, l -> {
          // The new group redelivers what the lost one had in flight: acks of its tags are stale.
          acks.take();
          attachedFrom = lastTag + 1;
          return joining(0);
        })
        .onMessage(StreamEnded.class, e -> {
          flushAcks(group);
          return end();
        })
        .onMessage(Attached.class, a -> Behaviors.same())
        .onMessage(RetryJoin.class, r -> Behaviors.same())
        .onSignal(PostStop.class, s -> onPostStop())
        .build();
  }

  /** A session that stops without ending its stream (it failed) ends it, so the client retries. */
  private Behavior<Command> onPostStop() {
    if (!ended) {
      out.tell(new Fail(new Refusal(Reason.UNAVAILABLE, "the subscriber session of topic " + init.topic()
          + " stopped; subscribe again")));
    }
    return Behaviors.same();
  }

  private static Behavior<Command> orSame(Behavior<Command> next) {
    return next == null ? Behaviors.same() : next;
  }

  /**
   * Gathers an ack, or passes a nack on to the group after the acks gathered before it; returns a behavior only
   * when the stream must end.
   */
  private Behavior<Command> onFrame(ActorRef<ConsumerGroup.Command> group, Command frame) {
    TagRanges tags = frame instanceof Ack a ? a.tags() : ((Nack) frame).tags();
    String kind = frame instanceof Ack ? "ack" : "nack";
    if (tags.highest() > lastTag) {
      return fail(new Refusal(Reason.UNKNOWN_TAG, kind + ": delivery tag " + tags.highest()
          + " was never delivered on this stream (the last tag sent is " + lastTag + ")"));
    }
    TagRanges current = tags.from(attachedFrom);
    if (current.isEmpty()) {
      return null;
    }
    if (frame instanceof Nack n) {
      flushAcks(group);
      group.tell(new ConsumerGroup.NackDeliveries(ctx.getSelf(), current, n.requeueDelay()));
    } else {
      acks.add(current);
      if (!flushQueued) {
        flushQueued = true;
        ctx.getSelf().tell(new FlushAcks());
      }
    }
    return null;
  }

  private void flushAcks(ActorRef<ConsumerGroup.Command> group) {
    if (!acks.isEmpty()) {
      group.tell(new ConsumerGroup.AckDeliveries(ctx.getSelf(), acks.take()));
    }
  }

  private Behavior<Command> onDeliver(Deliver deliver) {
    List<GroupDelivery> deliveries = deliver.deliveries();
    if (!deliveries.isEmpty()) {
      // The group delivers as soon as it takes the consumer, and its first deliveries can arrive before the attach
      // reply: the stream must still start with the subscribed frame (consumer.proto).
      announceSubscribed();
      lastTag = Math.max(lastTag, deliveries.get(deliveries.size() - 1).tag());
      out.tell(new Emit(deliveries));
    }
    return Behaviors.same();
  }

  /** The first frame of the stream, once: on the first join, or on a first delivery that overtook it. */
  private void announceSubscribed() {
    if (!subscribed) {
      subscribed = true;
      out.tell(new Subscribed(init.topic(), init.group(), init.maxInFlight(), init.maxInFlightBytes()));
    }
  }

  private Behavior<Command> fail(Refusal refusal) {
    ended = true;
    out.tell(new Fail(refusal));
    return Behaviors.stopped();
  }

  private Behavior<Command> end() {
    ended = true;
    out.tell(new Close());
    return Behaviors.stopped();
  }
}
