package io.futureq.console;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.futureq.api.CallAccess;
import io.futureq.api.ShardCalls;
import io.futureq.api.grpc.AdminPowerApi;
import io.futureq.api.grpc.ProducerPowerApi;
import io.futureq.config.BrokerSettings;
import io.futureq.log.LogShards;
import io.futureq.tls.ReloadingTls;
import java.time.Clock;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.ConnectionContext;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.ServerBuilder;
import org.apache.pekko.stream.Materializer;

/**
 * The web console on {@code futureq.console.host:port}: HTTP/1.1, or HTTPS with the API's certificate (following its
 * files) when {@code futureq.security.tls} is on, behind the API's tokens and permissions ({@link CallAccess}).
 * It reads the cluster through this node, as the API does; see docs/console.md.
 */
public final class ConsoleServer {
  private ConsoleServer() {}

  /**
   * Binds the console.
   *
   * @throws io.futureq.tls.PemException if TLS is on and its files do not read
   */
  public static CompletionStage<ServerBinding> bind(ActorSystem<?> system, BrokerSettings settings, CallAccess access,
      LogShards state, ShardCalls calls, AdminPowerApi admin, ProducerPowerApi producer, Executor storageExecutor) {
    Clock clock = Clock.systemUTC();
    DueWindows counts = new DueWindows(state, calls, storageExecutor);
    ConsoleReads reads = new ConsoleReads(admin, counts);
    TimelineReader timeline = new TimelineReader(counts);
    TimelineTopics topics = new TimelineTopics(reads, counts);
    ConsoleContext context = new ConsoleContext(access, reads, new ConsoleActions(admin, producer),
        new TopicListing(reads, counts), topics, timeline,
        new TimelineStream(timeline, topics, clock),
        new ConsoleOverview(reads, timeline, shown(settings), access.authenticationOn()), clock);
    ConsoleHandler handler = new ConsoleHandler(context, Materializer.matFromSystem(system));
    ServerBuilder server = Http.get(system).newServerAt(settings.console().host(), settings.console().port());
    if (settings.security().tls().enabled()) {
      ReloadingTls engines = ReloadingTls.load(settings.security().tls().files());
      server = server.enableHttps(ConnectionContext.httpsServer(engines::serverEngine));
    }
    return server.bind(handler::handle);
  }

  /** The settings an operator looks for first. */
  private static ObjectNode shown(BrokerSettings s) {
    return ConsoleReply.object()
        .put("futureq.node-id", s.cluster().nodeId())
        .put("futureq.cluster.enabled", s.cluster().enabled())
        .put("futureq.storage.engine", s.storage().engine().configName())
        .put("futureq.topic.bucket-size", s.topic().bucketMs() + "ms")
        .put("futureq.group.in-flight-timeout", s.group().inFlightTimeout().toMillis() + "ms")
        .put("futureq.group.max-deliveries", s.group().maxDeliveries())
        .put("futureq.api.port", s.api().port())
        .put("futureq.api.default-max-in-flight", s.api().defaultMaxInFlight())
        .put("futureq.api.max-delay", s.api().maxDelay().toDays() + "d")
        .put("futureq.security.tls.enabled", s.security().tls().enabled())
        .put("futureq.security.auth.enabled", s.security().auth().enabled());
  }
}
