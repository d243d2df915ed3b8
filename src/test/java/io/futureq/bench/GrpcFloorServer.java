package io.futureq.bench;

import com.google.protobuf.ByteString;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.futureq.api.grpc.ConsumerFrame;
import io.futureq.api.grpc.ConsumerPowerApi;
import io.futureq.api.grpc.ConsumerPowerApiHandlerFactory;
import io.futureq.api.grpc.Delivery;
import io.futureq.api.grpc.DeliveryFrame;
import io.futureq.api.grpc.Subscribed;
import io.futureq.app.CommonPool;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.japi.function.Function;
import org.apache.pekko.stream.OverflowStrategy;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.typed.javadsl.ActorSink;
import org.apache.pekko.stream.typed.javadsl.ActorSource;

/**
 * The server half of the gRPC floor bench ({@code scripts/grpc-floor-bench.sh}): the generated Pekko gRPC
 * {@code Consumer} service with nothing of FutureQ behind it, bound as the broker binds its API (Pekko HTTP/2,
 * cleartext, the {@code pekko.http.server} settings of {@code conf/futureq.conf}, responses uncompressed). For every
 * {@code batch} frames a stream receives it sends one {@link DeliveryFrame} of {@code batch} deliveries of 100 B.
 *
 * <p>Arguments: port, mode, batch. Modes:
 * <ul>
 *   <li>{@code echo}: {@code in.map(f -> frame)} (or {@code in.grouped(batch)}), the stack alone;
 *   <li>{@code actor}: frames told to a per-stream actor that sends the reply into an {@link ActorSource}, as
 *       {@code api/ConsumerService} does (one actor hop per frame);
 *   <li>{@code group}: as {@code actor}, but the session actor passes each frame on to one actor shared by every
 *       stream, which answers the session, which sends the reply: the broker's session and group (three hops).
 * </ul>
 * Prints {@code ready PID} once bound; runs until killed.
 */
public final class GrpcFloorServer {
  /** What the session actors take: a frame from the client, a reply from the group, or the stream's end. */
  private sealed interface Msg permits Frame, Replies, End {}

  private record Frame(ConsumerFrame frame) implements Msg {}

  private record Replies(int deliveries) implements Msg {}

  private record End() implements Msg {}

  /** What the shared "group" actor takes: a frame, and where to answer. */
  private record ToGroup(ActorRef<Msg> session) {}

  /** Completes an {@link ActorSource} (compared by identity). */
  private static final DeliveryFrame CLOSE = DeliveryFrame.newBuilder()
      .setSubscribed(Subscribed.newBuilder().setTopic("close")).build();

  private final ActorSystem<Void> system;
  private final DeliveryFrame[] frames;
  private final int batch;
  private final ActorRef<ToGroup> group;

  private GrpcFloorServer(ActorSystem<Void> system, int batch) {
    this.system = system;
    this.batch = batch;
    this.frames = new DeliveryFrame[batch + 1];
    for (int n = 1; n <= batch; n++) {
      frames[n] = frame(n);
    }
    this.group = system.systemActorOf(Behaviors.<ToGroup>receiveMessage(m -> {
      m.session().tell(new Replies(1));
      return Behaviors.same();
    }), "group", Props.empty());
  }

  public static void main(String[] args) throws Exception {
    CommonPool.size(); // as the broker's main does
    int port = Integer.parseInt(args[0]);
    String mode = args[1].toLowerCase(Locale.ROOT);
    int batch = Integer.parseInt(args[2]);
    Config http = ConfigFactory.parseResources("futureq.conf").resolve().getConfig("pekko.http.server")
        .atPath("pekko.http.server");
    Config config = ConfigFactory.systemProperties().withFallback(http)
        .withFallback(ConfigFactory.parseString("pekko.loglevel = WARNING"))
        .withFallback(ConfigFactory.defaultReference()).resolve();
    // A short name: the kernel keeps 15 characters of a thread's name, and the client's per-thread figures then tell
    // f-pekko.actor.d(efault-dispatcher) from f-pekko.actor.i(nternal-dispatcher).
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "f", config);
    GrpcFloorServer server = new GrpcFloorServer(system, batch);
    ConsumerPowerApi service = (in, metadata) -> server.subscribe(mode, in);
    Function<HttpRequest, CompletionStage<HttpResponse>> handler =
        ConsumerPowerApiHandlerFactory.create(service, system);
    // As ApiServer: without this pekko-grpc gzips every response to a grpc-java client.
    Function<HttpRequest, CompletionStage<HttpResponse>> plain =
        request -> handler.apply(request.removeHeader("grpc-accept-encoding"));
    Http.get(system).newServerAt("127.0.0.1", port).bind(plain).toCompletableFuture().get();
    System.out.println("ready " + ProcessHandle.current().pid());
    system.getWhenTerminated().toCompletableFuture().get();
  }

  private Source<DeliveryFrame, NotUsed> subscribe(String mode, Source<ConsumerFrame, NotUsed> in) {
    switch (mode) {
      case "echo":
        DeliveryFrame one = frames[batch];
        return batch == 1 ? in.map(f -> one) : in.grouped(batch).map(list -> frames[list.size()]);
      case "actor":
        return viaActor(in, false);
      case "group":
        return viaActor(in, true);
      default:
        return Source.failed(new IllegalArgumentException("mode: echo, actor or group, not " + mode));
    }
  }

  /** As ConsumerService's session: frames go to an actor through an ActorSink, its replies out of an ActorSource. */
  private Source<DeliveryFrame, NotUsed> viaActor(Source<ConsumerFrame, NotUsed> in, boolean viaGroup) {
    Pair<ActorRef<DeliveryFrame>, Source<DeliveryFrame, NotUsed>> out = ActorSource.<DeliveryFrame>actorRef(
        f -> f == CLOSE, f -> Optional.empty(), 1024, OverflowStrategy.fail()).preMaterialize(system);
    ActorRef<Msg> session = system.systemActorOf(session(out.first(), viaGroup), "session-" + UUID.randomUUID(),
        Props.empty());
    in.<Msg>map(Frame::new).runWith(ActorSink.actorRef(session, new End(), failure -> new End()), system);
    return out.second();
  }

  private Behavior<Msg> session(ActorRef<DeliveryFrame> out, boolean viaGroup) {
    return Behaviors.setup(ctx -> {
      int[] pending = {0};
      return Behaviors.receiveMessage(m -> {
        if (m instanceof End) {
          out.tell(CLOSE);
          return Behaviors.stopped();
        }
        if (m instanceof Frame && viaGroup) {
          group.tell(new ToGroup(ctx.getSelf()));
          return Behaviors.same();
        }
        if (++pending[0] == batch) {
          pending[0] = 0;
          out.tell(frames[batch]);
        }
        return Behaviors.same();
      });
    });
  }

  /** A frame of {@code n} deliveries of 100 B, as the broker sends them (ids, times, attempt). */
  private static DeliveryFrame frame(int n) {
    DeliveryFrame.Builder frame = DeliveryFrame.newBuilder();
    for (int i = 1; i <= n; i++) {
      frame.addDeliveries(Delivery.newBuilder().setDeliveryTag(i).setMessageId("01JF8Z3Q4W5E6R7T8Y9U0I1O2P")
          .setPayload(ByteString.copyFrom(new byte[100])).setDueAtUnixMs(1_765_000_000_000L)
          .setEnqueuedAtUnixMs(1_764_999_990_000L).setAttempt(1));
    }
    return frame.build();
  }
}
