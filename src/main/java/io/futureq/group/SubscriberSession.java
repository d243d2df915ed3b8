package io.futureq.group;

import io.futureq.serialization.CborSerializable;
import io.futureq.api.grpc.ConsumerFrame;
import io.futureq.api.grpc.Delivery;
import io.grpc.Status;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * One Subscribe stream: joins its group, passes deliveries out and acks and nacks in. If the group
 * goes away (its topic moved or restarted) the session joins again; in-flight deliveries of the old
 * group are redelivered by the new one.
 */
public final class SubscriberSession {

  public sealed interface Command extends CborSerializable {}

  /** A frame after the init, from the client. */
  public record FrameReceived(ConsumerFrame frame) implements Command {}

  /** The client closed its side, or the call ended. */
  public record StreamEnded() implements Command {}

  /** Deliveries for this consumer, in order. */
  public record Deliver(List<Delivery> deliveries) implements Command {
    public Deliver {
      deliveries = List.copyOf(deliveries);
    }
  }

  /**
   * The group refused the consumer: an unknown delivery tag (the stream fails with
   * FAILED_PRECONDITION) or a limit ({@code overLimit}: RESOURCE_EXHAUSTED).
   */
  public record Refuse(String reason, boolean overLimit) implements Command {}

  private record Attached(ActorRef<ConsumerGroup.Command> group, Throwable failure) implements Command {}

  private record GroupLost() implements Command {}

  /** What the session writes to the response stream. */
  public sealed interface Output {}

  public record Emit(List<Delivery> deliveries) implements Output {}

  public record Close() implements Output {}

  public record Fail(Status status) implements Output {}

  /** A validated init frame. */
  public record Init(String topic, String group, int maxInFlight, Duration maxRequeueDelay, Duration rejoinDelay) {}

  public static Behavior<Command> create(Init init, GroupDirectory directory, ActorRef<Output> out) {
    return Behaviors.setup(ctx -> new SubscriberSession(ctx, init, directory, out).joining(0));
  }

  private static final int MAX_REJOINS = 20;

  private final ActorContext<Command> ctx;
  private final Init init;
  private final GroupDirectory directory;
  private final ActorRef<Output> out;
  private final List<ConsumerFrame> early = new ArrayList<>();

  private SubscriberSession(ActorContext<Command> ctx, Init init, GroupDirectory directory, ActorRef<Output> out) {
    this.ctx = ctx;
    this.init = init;
    this.directory = directory;
    this.out = out;
  }

  private Behavior<Command> joining(int attempt) {
    ctx.pipeToSelf(directory.attach(init.topic(), init.group(), ctx.getSelf(), init.maxInFlight()), Attached::new);
    return Behaviors.receive(Command.class)
        .onMessage(Attached.class, a -> onAttached(a, attempt))
        .onMessage(FrameReceived.class, f -> {
          early.add(f.frame());
          return Behaviors.same();
        })
        .onMessage(StreamEnded.class, e -> end())
        .onMessage(GroupLost.class, l -> Behaviors.same())
        .onMessage(Deliver.class, this::onDeliver)
        .onMessage(Refuse.class, this::onRefuse)
        .build();
  }

  private Behavior<Command> onAttached(Attached attached, int attempt) {
    if (attached.failure() != null) {
      if (attempt >= MAX_REJOINS) {
        return fail(Status.UNAVAILABLE.withDescription("cannot join group '" + init.group() + "' of topic "
            + init.topic() + ": " + attached.failure().getMessage()));
      }
      return Behaviors.withTimers(t -> {
        t.startSingleTimer(new GroupLost(), init.rejoinDelay());
        return Behaviors.receive(Command.class)
            .onMessage(GroupLost.class, l -> joining(attempt + 1))
            .onMessage(StreamEnded.class, e -> end())
            .onMessage(FrameReceived.class, f -> {
              early.add(f.frame());
              return Behaviors.same();
            })
            .onMessage(Deliver.class, this::onDeliver)
            .onMessage(Refuse.class, this::onRefuse)
            .onMessage(Attached.class, a -> Behaviors.same())
            .build();
      });
    }
    ActorRef<ConsumerGroup.Command> group = attached.group();
    ctx.watchWith(group, new GroupLost());
    for (ConsumerFrame frame : early) {
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
        .onMessage(FrameReceived.class, f -> {
          Behavior<Command> next = onFrame(group, f.frame());
          return next == null ? Behaviors.same() : next;
        })
        .onMessage(Refuse.class, this::onRefuse)
        .onMessage(GroupLost.class, l -> joining(0))
        .onMessage(StreamEnded.class, e -> end())
        .onMessage(Attached.class, a -> Behaviors.same())
        .build();
  }

  /** Handles an ack or nack frame; returns a behavior only when the stream must end. */
  private Behavior<Command> onFrame(ActorRef<ConsumerGroup.Command> group, ConsumerFrame frame) {
    try {
      switch (frame.getFrameCase()) {
        case ACK: {
          List<DeliveryTag> tags = new ArrayList<>();
          for (int i = 0; i < frame.getAck().getDeliveryTagsCount(); i++) {
            tags.add(parseTag(frame.getAck().getDeliveryTags(i), "ack.delivery_tags[" + i + "]"));
          }
          group.tell(new ConsumerGroup.AckDeliveries(ctx.getSelf(), tags));
          return null;
        }
        case NACK: {
          DeliveryTag tag = parseTag(frame.getNack().getDeliveryTag(), "nack.delivery_tag");
          long delayMs = frame.getNack().getRequeueDelayMs();
          if (delayMs < 0 || delayMs > init.maxRequeueDelay().toMillis()) {
            throw new IllegalArgumentException("nack.requeue_delay_ms: must be between 0 and "
                + init.maxRequeueDelay().toMillis() + ", got " + delayMs);
          }
          group.tell(new ConsumerGroup.NackDelivery(ctx.getSelf(), tag, Duration.ofMillis(delayMs)));
          return null;
        }
        case INIT:
          return fail(Status.FAILED_PRECONDITION.withDescription(
              "init: this stream is already subscribed to topic " + init.topic()));
        default:
          throw new IllegalArgumentException("frame: must carry init, ack or nack");
      }
    } catch (IllegalArgumentException e) {
      return fail(Status.INVALID_ARGUMENT.withDescription(e.getMessage()));
    }
  }

  private static DeliveryTag parseTag(String text, String field) {
    try {
      return DeliveryTag.parse(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(field + ": " + e.getMessage());
    }
  }

  private Behavior<Command> onDeliver(Deliver deliver) {
    out.tell(new Emit(deliver.deliveries()));
    return Behaviors.same();
  }

  private Behavior<Command> onRefuse(Refuse refuse) {
    return fail((refuse.overLimit() ? Status.RESOURCE_EXHAUSTED : Status.FAILED_PRECONDITION)
        .withDescription(refuse.reason()));
  }

  private Behavior<Command> fail(Status status) {
    out.tell(new Fail(status));
    return Behaviors.stopped();
  }

  private Behavior<Command> end() {
    out.tell(new Close());
    return Behaviors.stopped();
  }
}
