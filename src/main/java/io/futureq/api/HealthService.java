package io.futureq.api;

import io.futureq.api.grpc.Admin;
import io.futureq.api.grpc.Consumer;
import io.futureq.api.grpc.Producer;
import io.grpc.Status;
import io.grpc.health.v1.Health;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BooleanSupplier;
import org.apache.pekko.NotUsed;
import org.apache.pekko.grpc.GrpcServiceException;
import org.apache.pekko.stream.javadsl.Source;

/** grpc.health.v1: SERVING once the broker is ready, for "" and each FutureQ service name. */
public final class HealthService implements Health {
  private static final Set<String> SERVICES = Set.of("", Producer.name, Consumer.name, Admin.name);

  private final BooleanSupplier ready;

  public HealthService(BooleanSupplier ready) {
    this.ready = ready;
  }

  @Override
  public CompletionStage<HealthCheckResponse> check(HealthCheckRequest in) {
    if (!SERVICES.contains(in.getService())) {
      return CompletableFuture.failedFuture(new GrpcServiceException(
          Status.NOT_FOUND.withDescription("service: unknown service '" + in.getService() + "'")));
    }
    return CompletableFuture.completedFuture(current());
  }

  @Override
  public Source<HealthCheckResponse, NotUsed> watch(HealthCheckRequest in) {
    if (!SERVICES.contains(in.getService())) {
      return Source.single(HealthCheckResponse.newBuilder().setStatus(ServingStatus.SERVICE_UNKNOWN).build());
    }
    return Source.single(current())
        .concat(Source.<HealthCheckResponse>maybe().mapMaterializedValue(m -> NotUsed.getInstance()));
  }

  private HealthCheckResponse current() {
    return HealthCheckResponse.newBuilder()
        .setStatus(ready.getAsBoolean() ? ServingStatus.SERVING : ServingStatus.NOT_SERVING).build();
  }
}
