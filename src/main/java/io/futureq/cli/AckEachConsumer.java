package io.futureq.cli;

import io.futureq.api.grpc.AckFrame;
import io.futureq.api.grpc.ConsumerFrame;
import io.futureq.api.grpc.Delivery;
import io.futureq.api.grpc.DeliveryFrame;
import io.futureq.api.grpc.SubscribeInit;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.protobuf.ProtoUtils;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A consumer on plain grpc-java, without the Java client, that acks each delivery in a frame of its own as soon as
 * it has handled it: what any gRPC client may send, and the shape that costs the broker most per delivery. The
 * bench's {@code --ack-each} runs it, so that a broker that pays per ack frame shows.
 */
final class AckEachConsumer extends ClientCall.Listener<DeliveryFrame> implements AutoCloseable {
  static final MethodDescriptor<ConsumerFrame, DeliveryFrame> SUBSCRIBE =
      MethodDescriptor.<ConsumerFrame, DeliveryFrame>newBuilder()
          .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
          .setFullMethodName(MethodDescriptor.generateFullMethodName("futureq.v1.Consumer", "Subscribe"))
          .setRequestMarshaller(ProtoUtils.marshaller(ConsumerFrame.getDefaultInstance()))
          .setResponseMarshaller(ProtoUtils.marshaller(DeliveryFrame.getDefaultInstance()))
          .build();

  private final ClientCall<ConsumerFrame, DeliveryFrame> call;
  private final Consumer<Delivery> handler;
  private final CompletableFuture<Void> subscribed = new CompletableFuture<>();
  private boolean closed;

  /** Subscribes with a credit of {@code maxInFlight} (0: the broker's default); {@code handler} sees each delivery. */
  AckEachConsumer(Channel channel, String topic, String group, int maxInFlight, Consumer<Delivery> handler) {
    this.call = channel.newCall(SUBSCRIBE, CallOptions.DEFAULT);
    this.handler = handler;
    synchronized (this) {
      call.start(this, new Metadata());
      call.request(1);
      call.sendMessage(ConsumerFrame.newBuilder().setInit(SubscribeInit.newBuilder().setTopic(topic)
          .setGroup(group).setMaxInFlight(maxInFlight)).build());
    }
  }

  /** Completes once the broker has taken the subscription. */
  CompletableFuture<Void> subscribed() {
    return subscribed;
  }

  @Override
  public void onMessage(DeliveryFrame frame) {
    if (frame.hasSubscribed()) {
      subscribed.complete(null);
    }
    for (Delivery d : frame.getDeliveriesList()) {
      handler.accept(d);
      ack(d.getDeliveryTag());
    }
    synchronized (this) {
      if (!closed) {
        call.request(1);
      }
    }
  }

  @Override
  public void onClose(Status status, Metadata trailers) {
    synchronized (this) {
      closed = true;
    }
    subscribed.completeExceptionally(status.asRuntimeException());
  }

  private synchronized void ack(long tag) {
    if (!closed) {
      call.sendMessage(ConsumerFrame.newBuilder().setAck(AckFrame.newBuilder().addDeliveryTags(tag)).build());
    }
  }

  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      call.halfClose();
    }
  }
}
