package io.futureq.app;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.apache.pekko.actor.ActorSystem;

/** Pekko Management readiness check behind GET /ready. */
public final class ReadinessCheck implements Supplier<CompletionStage<Boolean>> {
  private final Readiness readiness;

  public ReadinessCheck(ActorSystem system) {
    this.readiness = Readiness.get(system);
  }

  @Override
  public CompletionStage<Boolean> get() {
    return CompletableFuture.completedFuture(readiness.isReady());
  }
}
