package io.futureq.api;

import io.futureq.api.grpc.Admin;
import io.futureq.api.grpc.AdminPowerApiHandlerFactory;
import io.futureq.api.grpc.Consumer;
import io.futureq.api.grpc.ConsumerPowerApiHandlerFactory;
import io.futureq.api.grpc.Producer;
import io.futureq.api.grpc.ProducerPowerApiHandlerFactory;
import io.futureq.config.ApiSettings;
import io.futureq.config.ApiTlsSettings;
import io.futureq.tls.ReloadingTls;
import io.grpc.health.v1.Health;
import io.grpc.health.v1.HealthHandlerFactory;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.grpc.javadsl.ServerReflection;
import org.apache.pekko.grpc.javadsl.ServiceHandler;
import org.apache.pekko.http.javadsl.ConnectionContext;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.ServerBuilder;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.RequestEntity;
import org.apache.pekko.japi.function.Function;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.scaladsl.Flow;
import org.apache.pekko.util.ByteString;

/**
 * Binds the gRPC services (plus health and reflection) on one HTTP/2 port: cleartext HTTP/2, or with TLS, HTTP/2
 * negotiated by ALPN ({@code h2}, which pekko-http adds to every engine it gets).
 */
public final class ApiServer {
  private static final String ACCEPT_ENCODING = "grpc-accept-encoding";
  private static final String REFLECTION_V1 = "/grpc.reflection.v1.ServerReflection/";
  private static final String REFLECTION_V1ALPHA = "/grpc.reflection.v1alpha.ServerReflection/";

  private ApiServer() {}

  /**
   * Binds on {@code settings.host():port()}; with {@code tls} enabled, over TLS whose certificate follows its files.
   *
   * @throws io.futureq.tls.PemException if TLS is on and its files do not read
   */
  public static CompletionStage<ServerBinding> bind(ActorSystem<?> system, ApiSettings settings, ApiTlsSettings tls,
      ProducerService producer, ConsumerService consumer, AdminService admin, HealthService health) {
    Materializer mat = Materializer.matFromSystem(system);
    @SuppressWarnings("unchecked")
    Function<HttpRequest, CompletionStage<HttpResponse>> handler = ServiceHandler.concatOrNotFound(
        // Power APIs: these services get each call's metadata to authenticate and authorize it (CallAccess).
        ProducerPowerApiHandlerFactory.partial(producer, Producer.name, mat, GrpcErrors.handler(), system),
        ConsumerPowerApiHandlerFactory.partial(consumer, Consumer.name, mat, GrpcErrors.handler(), system),
        AdminPowerApiHandlerFactory.partial(admin, Admin.name, mat, GrpcErrors.handler(), system),
        HealthHandlerFactory.partial(health, Health.name, mat, GrpcErrors.handler(), system),
        ServerReflection.create(List.of(Producer.description, Consumer.description, Admin.description,
            Health.description), system));
    UnaryRequestDrain unary = new UnaryRequestDrain(List.of(Producer.description.descriptor(),
        Consumer.description.descriptor(), Admin.description.descriptor(), Health.description.descriptor()));
    long maxMessage = settings.maxBatchBytes() + (1 << 20);
    var limit = scalaFlow(GrpcMessageLimit.flow(maxMessage));
    var limitThenDrain = scalaFlow(GrpcMessageLimit.flow(maxMessage).via(UnaryRequestDrain.flow()));
    Function<HttpRequest, CompletionStage<HttpResponse>> limited = request -> {
      // fqn: the Scala model's RequestEntity (it takes a Scala Flow), beside the Java one (imported)
      var entity = (org.apache.pekko.http.scaladsl.model.RequestEntity) request.entity();
      // grpc-java clients accept gzip, and pekko-grpc then compresses every response message on its
      // own, with a fresh deflater: a fifth of the broker's CPU in a burst for ~100-byte deliveries.
      // Responses go out uncompressed; compressed requests are still read.
      HttpRequest plain = reflectionV1AsV1alpha(request.removeHeader(ACCEPT_ENCODING));
      var bytes = unary.isUnary(request.getUri().path()) ? limitThenDrain : limit;
      return handler.apply(plain.withEntity((RequestEntity) entity.transformDataBytes(bytes)));
    };
    ServerBuilder server = Http.get(system).newServerAt(settings.host(), settings.port());
    if (tls.enabled()) {
      ReloadingTls engines = ReloadingTls.load(tls.files());
      server = server.enableHttps(ConnectionContext.httpsServer(engines::serverEngine));
    }
    return server.bind(limited);
  }

  /**
   * pekko-grpc serves server reflection as grpc.reflection.v1alpha only; tools that speak only v1 got
   * UNIMPLEMENTED. v1 is the same protocol under a new package name (identical messages and field numbers), so
   * its calls are answered by the v1alpha service. Its service list names v1alpha.
   */
  private static HttpRequest reflectionV1AsV1alpha(HttpRequest request) {
    String path = request.getUri().path();
    if (!path.startsWith(REFLECTION_V1)) {
      return request;
    }
    return request.withUri(request.getUri().path(REFLECTION_V1ALPHA + path.substring(REFLECTION_V1.length())));
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Flow<ByteString, ByteString, Object> scalaFlow( // fqn: the Java DSL's Flow, beside the Scala one
      org.apache.pekko.stream.javadsl.Flow<ByteString, ByteString, ?> flow) {
    return (Flow) flow.asScala();
  }
}
