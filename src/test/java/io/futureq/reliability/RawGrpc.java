package io.futureq.reliability;

import io.futureq.api.grpc.ConsumerFrame;
import io.futureq.api.grpc.DeliveryFrame;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.ProtoUtils;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/** grpc-java without stubs: raw-byte methods, hand-made calls, for feeding the broker what no client would. */
public final class RawGrpc {
  private RawGrpc() {}

  /** Passes bytes through untouched, both ways. */
  public static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      try {
        return stream.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  };

  static final MethodDescriptor<ConsumerFrame, DeliveryFrame> SUBSCRIBE =
      MethodDescriptor.<ConsumerFrame, DeliveryFrame>newBuilder()
      .setType(MethodDescriptor.MethodType.BIDI_STREAMING).setFullMethodName("futureq.v1.Consumer/Subscribe")
      .setRequestMarshaller(ProtoUtils.marshaller(ConsumerFrame.getDefaultInstance()))
      .setResponseMarshaller(ProtoUtils.marshaller(DeliveryFrame.getDefaultInstance())).build();

  public static MethodDescriptor<byte[], byte[]> raw(String fullName, MethodDescriptor.MethodType type) {
    return MethodDescriptor.<byte[], byte[]>newBuilder().setType(type).setFullMethodName(fullName)
        .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();
  }

  static ManagedChannel channel(int port) {
    return NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
  }

  /** A channel whose per-stream receive window is {@code window} bytes (no auto-tuning). */
  static ManagedChannel channel(int port, int window) {
    return NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().flowControlWindow(window).build();
  }

  /** How a call ended: its status and the messages it received. */
  record Outcome(Status status, List<byte[]> messages) {
    Status.Code code() {
      return status.getCode();
    }

    @Override
    public String toString() {
      return status.getCode() + (status.getDescription() == null ? "" : " (" + status.getDescription() + ")")
          + (status.getCause() == null ? "" : " cause " + status.getCause());
    }
  }

  /** Sends {@code requests} on one call of {@code method}, half-closes, and waits for the end. */
  static Outcome call(Channel channel, MethodDescriptor<byte[], byte[]> method, Metadata headers, Duration deadline,
      byte[]... requests) throws Exception {
    ClientCall<byte[], byte[]> call = channel.newCall(method, CallOptions.DEFAULT
        .withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS));
    List<byte[]> messages = new CopyOnWriteArrayList<>();
    CompletableFuture<Outcome> done = new CompletableFuture<>();
    call.start(new ClientCall.Listener<>() {
      @Override
      public void onMessage(byte[] message) {
        messages.add(message);
        call.request(1);
      }

      @Override
      public void onClose(Status status, Metadata trailers) {
        done.complete(new Outcome(status, messages));
      }
    }, headers);
    call.request(1);
    for (byte[] r : requests) {
      call.sendMessage(r);
    }
    call.halfClose();
    return done.get(deadline.toMillis() + 10_000, TimeUnit.MILLISECONDS);
  }
}
