package io.futureq.app;

import static org.apache.pekko.http.javadsl.server.Directives.completeWithFuture;
import static org.apache.pekko.http.javadsl.server.Directives.concat;
import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.path;

import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.management.HealthCheckSettings;
import org.apache.pekko.management.javadsl.CheckResult;
import org.apache.pekko.management.javadsl.HealthChecks;
import org.apache.pekko.management.javadsl.ManagementRouteProvider;
import org.apache.pekko.management.javadsl.ManagementRouteProviderSettings;

/**
 * GET /startup, /ready and /alive on the management port, in place of Pekko's own health routes:
 * the same checks and status codes (200, or 500 with the failed check), with the storage engine in
 * the body, so a probe or a person sees at once that a broker keeps its data in memory only.
 */
public final class HealthRoutes implements ManagementRouteProvider {
  private final HealthCheckSettings settings;
  private final HealthChecks checks;
  private final Readiness readiness;

  public HealthRoutes(ExtendedActorSystem system) {
    this.settings = HealthCheckSettings.create(system.settings().config().getConfig("pekko.management.health-checks"));
    this.checks = new HealthChecks(system, settings);
    this.readiness = Readiness.get(system);
  }

  @Override
  public Route routes(ManagementRouteProviderSettings routeSettings) {
    return concat(
        check(settings.startupPath(), checks::startupResult),
        check(settings.readinessPath(), checks::readyResult),
        check(settings.livenessPath(), checks::aliveResult));
  }

  /** Runs {@code checks} on each GET of {@code at}. */
  private Route check(String at, Supplier<CompletionStage<CheckResult>> checks) {
    return path(PathMatchers.separateOnSlashes(at), () -> get(() -> completeWithFuture(answer(checks.get()))));
  }

  private CompletionStage<HttpResponse> answer(CompletionStage<CheckResult> result) {
    String storage = "\nstorage: " + readiness.storage() + "\n";
    return result.thenApply(r -> r.isSuccess()
            ? HttpResponse.create().withStatus(StatusCodes.OK).withEntity("OK" + storage)
            : HttpResponse.create().withStatus(StatusCodes.INTERNAL_SERVER_ERROR)
                .withEntity("Not Healthy: " + r.failure().orElse("") + storage))
        .exceptionally(e -> HttpResponse.create().withStatus(StatusCodes.INTERNAL_SERVER_ERROR)
            .withEntity("Health Check Failed: " + e.getMessage() + storage));
  }
}
