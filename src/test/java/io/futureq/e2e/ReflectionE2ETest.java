package io.futureq.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnknownFieldSet;
import io.futureq.reliability.RawGrpc;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Server reflection answers in both protocol versions, as tools such as grpcurl and Postman ask for either. The
 * messages are built by field number: the two versions share them, and the tests need no reflection stubs.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReflectionE2ETest {
  /** ServerReflectionRequest.list_services and ServerReflectionResponse.list_services_response. */
  private static final int LIST_SERVICES = 7;
  private static final int LIST_SERVICES_RESPONSE = 6;

  @RegisterExtension
  static final BrokerExtension broker = BrokerExtension.withDefaults();
  static ManagedChannel channel;

  @BeforeAll
  static void start() {
    channel = NettyChannelBuilder.forAddress("127.0.0.1", broker.grpcPort()).usePlaintext().build();
  }

  @AfterAll
  static void stop() throws InterruptedException {
    channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
  }

  @ParameterizedTest
  @ValueSource(strings = {"grpc.reflection.v1", "grpc.reflection.v1alpha"})
  void reflectionListsTheServices(String version) throws Exception {
    MethodDescriptor<byte[], byte[]> info = RawGrpc.raw(version + ".ServerReflection/ServerReflectionInfo",
        MethodDescriptor.MethodType.BIDI_STREAMING);
    byte[] listServices = UnknownFieldSet.newBuilder().addField(LIST_SERVICES,
        UnknownFieldSet.Field.newBuilder().addLengthDelimited(ByteString.EMPTY).build()).build().toByteArray();

    CompletableFuture<byte[]> answer = new CompletableFuture<>();
    ClientCall<byte[], byte[]> call = channel.newCall(info, CallOptions.DEFAULT.withDeadlineAfter(30,
        TimeUnit.SECONDS));
    call.start(new ClientCall.Listener<>() {
      @Override
      public void onMessage(byte[] message) {
        answer.complete(message);
      }

      @Override
      public void onClose(Status status, Metadata trailers) {
        answer.completeExceptionally(status.asRuntimeException());
      }
    }, new Metadata());
    call.request(1);
    call.sendMessage(listServices);
    call.halfClose();

    List<String> services = services(answer.get(30, TimeUnit.SECONDS));
    assertEquals(List.of("futureq.v1.Admin", "futureq.v1.Consumer", "futureq.v1.Producer", "grpc.health.v1.Health",
        "grpc.reflection.v1alpha.ServerReflection"), services.stream().sorted().toList());
  }

  private static List<String> services(byte[] response) throws InvalidProtocolBufferException {
    UnknownFieldSet fields = UnknownFieldSet.parseFrom(response);
    ByteString list = fields.getField(LIST_SERVICES_RESPONSE).getLengthDelimitedList().get(0);
    return UnknownFieldSet.parseFrom(list).getField(1).getLengthDelimitedList().stream().map(service -> {
      try {
        return UnknownFieldSet.parseFrom(service).getField(1).getLengthDelimitedList().get(0).toStringUtf8();
      } catch (InvalidProtocolBufferException e) {
        throw new IllegalStateException(e);
      }
    }).toList();
  }
}
