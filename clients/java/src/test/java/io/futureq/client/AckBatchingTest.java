package io.futureq.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.futureq.api.grpc.AckFrame;
import io.futureq.api.grpc.ConsumerFrame;
import io.futureq.api.grpc.DeliveryFrame;
import io.futureq.api.grpc.Subscribed;
import io.futureq.api.grpc.TagRange;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How a stream returns credit: acks one by one go out in frames of ranges, a frame per quarter of the credit in
 * force, the rest after the linger; never a frame per ack. The call is a recording stand-in and the linger timer
 * runs only when the test says, so the frames sent depend on the acks alone.
 */
class AckBatchingTest {
  private final RecordingCall call = new RecordingCall();
  private final HeldTimer timer = new HeldTimer();
  private final SubscribeStream stream = new SubscribeStream(new Channel() {
    @Override
    @SuppressWarnings("unchecked")
    public <Q, R> ClientCall<Q, R> newCall(MethodDescriptor<Q, R> method, CallOptions options) {
      return (ClientCall<Q, R>) call;
    }

    @Override
    public String authority() {
      return "test";
    }
  }, "orders", "billing", new NoEvents(), timer);

  @AfterEach
  void stopTimer() {
    timer.shutdownNow();
  }

  @Test
  void acksOneByOneGoOutInFramesOfAQuarterOfTheCredit() {
    stream.start(0, 0);
    call.listener.onMessage(subscribed(1000));

    for (long tag = 1; tag <= 1000; tag++) {
      stream.ack(tag);
    }

    List<AckFrame> acks = call.acks();
    assertEquals(4, acks.size(), "1,000 acks of a credit of 1,000 make 4 frames");
    for (int i = 0; i < 4; i++) {
      assertEquals(List.of(TagRange.newBuilder().setFirst(250L * i + 1).setLast(250L * (i + 1)).build()),
          acks.get(i).getRangesList());
    }
  }

  @Test
  void acksShortOfABatchGoOutTogetherAfterTheLinger() {
    stream.start(0, 0);
    call.listener.onMessage(subscribed(1000));

    for (long tag = 1; tag <= 10; tag++) {
      stream.ack(tag);
    }
    assertEquals(List.of(), call.acks());
    assertEquals(1, timer.held.size(), "one linger for all the acks");
    timer.held.get(0).run();

    assertEquals(List.of(AckFrame.newBuilder().addRanges(TagRange.newBuilder().setFirst(1).setLast(10)).build()),
        call.acks());
  }

  @Test
  void theInitAsksForTheCreditInMessagesAndBytes() {
    stream.start(500, 1 << 20);

    assertEquals(500, call.sent.get(0).getInit().getMaxInFlight());
    assertEquals(1 << 20, call.sent.get(0).getInit().getMaxInFlightBytes());
  }

  @Test
  void acksOfASmallCreditGoOutInTheHalvesTheBrokerRefillsOnNotInFramesOfTwo() {
    stream.start(10, 0);
    call.listener.onMessage(subscribed(10));

    for (long tag = 1; tag <= 10; tag++) {
      stream.ack(tag);
    }

    List<AckFrame> acks = call.acks();
    assertEquals(2, acks.size(), "10 acks of a credit of 10 make 2 frames");
    assertEquals(List.of(TagRange.newBuilder().setFirst(6).setLast(10).build()), acks.get(1).getRangesList());
  }

  @Test
  void anAckFrameHoldsAQuarterOfTheCreditOrWhatTheBrokerRefillsOnAtLeastOneAndAtMostTheBatchLimit() {
    assertEquals(1, SubscribeStream.ackBatch(2));
    assertEquals(5, SubscribeStream.ackBatch(10));
    assertEquals(50, SubscribeStream.ackBatch(100));
    assertEquals(64, SubscribeStream.ackBatch(200));
    assertEquals(250, SubscribeStream.ackBatch(1000));
    assertEquals(SubscribeStream.ACK_BATCH, SubscribeStream.ackBatch(10_000));
    assertEquals(SubscribeStream.ACK_BATCH, SubscribeStream.ackBatch(0));
  }

  private static DeliveryFrame subscribed(int maxInFlight) {
    return DeliveryFrame.newBuilder().setSubscribed(Subscribed.newBuilder().setTopic("orders").setGroup("billing")
        .setMaxInFlight(maxInFlight)).build();
  }

  /** Records the frames sent; answers nothing by itself. */
  private static final class RecordingCall extends ClientCall<ConsumerFrame, DeliveryFrame> {
    final List<ConsumerFrame> sent = new ArrayList<>();
    Listener<DeliveryFrame> listener;

    @Override
    public void start(Listener<DeliveryFrame> responseListener, Metadata headers) {
      listener = responseListener;
    }

    @Override
    public void request(int numMessages) {}

    @Override
    public void cancel(String message, Throwable cause) {}

    @Override
    public void halfClose() {}

    @Override
    public void sendMessage(ConsumerFrame message) {
      sent.add(message);
    }

    List<AckFrame> acks() {
      return sent.stream().filter(ConsumerFrame::hasAck).map(ConsumerFrame::getAck).toList();
    }
  }

  /** Keeps the linger tasks for the test to run. */
  private static final class HeldTimer extends ScheduledThreadPoolExecutor {
    final List<Runnable> held = new ArrayList<>();

    HeldTimer() {
      super(1);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
      held.add(task);
      return null;
    }
  }

  private static final class NoEvents implements SubscribeStream.Events {
    @Override
    public void subscribed(SubscribeStream stream) {}

    @Override
    public void delivered(SubscribeStream stream, List<ReceivedMessage> messages) {}

    @Override
    public void ended(SubscribeStream stream, Status status) {}
  }
}
