package io.futureq.app;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.apache.pekko.actor.ActorSystem;

/** Pekko Management readiness check behind GET /ready; a node not ready says why in the answer's body. */
public final class ReadinessCheck implements Supplier<CompletionStage<Boolean>> {
  private final Readiness readiness;

  public ReadinessCheck(ActorSystem system) {
    this.readiness = Readiness.get(system);
  }

  @Override
  public CompletionStage<Boolean> get() {
    String why = readiness.whyNotReady();
    return why == null ? CompletableFuture.completedFuture(true)
        : CompletableFuture.failedFuture(new IllegalStateException("not ready: " + why));
  }
}
