package io.futureq.e2e;

import io.futureq.api.grpc.AckFrame;
import io.futureq.api.grpc.ConsumerClient;
import io.futureq.api.grpc.ConsumerFrame;
import io.futureq.api.grpc.Delivery;
import io.futureq.api.grpc.DeliveryFrame;
import io.futureq.api.grpc.NackFrame;
import io.futureq.api.grpc.SubscribeInit;
import io.futureq.api.grpc.Subscribed;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.stream.OverflowStrategy;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.typed.javadsl.ActorSource;

/** A test consumer on a real Subscribe stream: records deliveries with their receive time. */
final class Subscription implements AutoCloseable {
  record Received(Delivery delivery, long receivedAtMs) {}

  private static final ConsumerFrame END = ConsumerFrame.getDefaultInstance();

  final LinkedBlockingQueue<Received> received = new LinkedBlockingQueue<>();
  final CompletableFuture<Void> done = new CompletableFuture<>();
  final CompletableFuture<Subscribed> subscribed = new CompletableFuture<>();
  /** Every frame received, in order. */
  final LinkedBlockingQueue<DeliveryFrame> frames = new LinkedBlockingQueue<>();
  private final ActorRef<ConsumerFrame> outgoing;

  Subscription(ActorSystem<?> system, ConsumerClient client, ConsumerFrame first) {
    var pair = ActorSource.<ConsumerFrame>actorRef(f -> f == END, f -> Optional.empty(), 1000,
        OverflowStrategy.fail()).preMaterialize(system);
    outgoing = pair.first();
    outgoing.tell(first);
    client.subscribe(pair.second()).runWith(Sink.foreach(this::onFrame), system).whenComplete((d, f) -> {
          if (f == null) {
            done.complete(null);
          } else {
            done.completeExceptionally(f);
          }
        });
  }

  private void onFrame(DeliveryFrame frame) {
    long now = System.currentTimeMillis();
    if (frame.hasSubscribed()) {
      subscribed.complete(frame.getSubscribed());
    }
    frames.add(frame);
    for (Delivery d : frame.getDeliveriesList()) {
      received.add(new Received(d, now));
    }
  }

  static Subscription open(BrokerExtension broker, String topic, String group, int maxInFlight) {
    return open(broker.broker(), topic, group, maxInFlight);
  }

  static Subscription open(TestBroker broker, String topic, String group, int maxInFlight) {
    return new Subscription(broker.clientSystem, broker.consumer, ConsumerFrame.newBuilder()
        .setInit(SubscribeInit.newBuilder().setTopic(topic).setGroup(group).setMaxInFlight(maxInFlight)).build());
  }

  void send(ConsumerFrame frame) {
    outgoing.tell(frame);
  }

  void ack(Delivery... deliveries) {
    AckFrame.Builder ack = AckFrame.newBuilder();
    for (Delivery d : deliveries) {
      ack.addDeliveryTags(d.getDeliveryTag());
    }
    send(ConsumerFrame.newBuilder().setAck(ack).build());
  }

  void nack(Delivery d, long delayMs) {
    send(ConsumerFrame.newBuilder().setNack(NackFrame.newBuilder().addDeliveryTags(d.getDeliveryTag())
        .setRequeueDelayMs(delayMs)).build());
  }

  /** Waits until the broker confirms the subscription. */
  Subscription awaitSubscribed(Duration within) throws Exception {
    subscribed.get(within.toMillis(), TimeUnit.MILLISECONDS);
    return this;
  }

  Received next(Duration within) throws InterruptedException {
    Received r = received.poll(within.toMillis(), TimeUnit.MILLISECONDS);
    if (r == null) {
      throw new AssertionError("no delivery within " + within);
    }
    return r;
  }

  List<Received> take(int n, Duration within) throws InterruptedException {
    long deadline = System.currentTimeMillis() + within.toMillis();
    List<Received> out = new ArrayList<>();
    while (out.size() < n) {
      Received r = received.poll(Math.max(1, deadline - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
      if (r == null) {
        throw new AssertionError("got " + out.size() + " of " + n + " deliveries within " + within);
      }
      out.add(r);
    }
    return out;
  }

  /** Asserts nothing arrives for {@code quiet}. */
  void expectNothing(Duration quiet) throws InterruptedException {
    Received r = received.poll(quiet.toMillis(), TimeUnit.MILLISECONDS);
    if (r != null) {
      throw new AssertionError("unexpected delivery " + r.delivery());
    }
  }

  @Override
  public void close() {
    outgoing.tell(END);
  }
}
