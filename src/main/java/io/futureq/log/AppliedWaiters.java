package io.futureq.log;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.LongSupplier;

/**
 * Callers waiting until a replica has applied a log index. An {@link EventLog} completes them as its
 * applied index moves; thread-safe: waits come from any thread, the log advances from its own.
 */
public final class AppliedWaiters {
  private final ConcurrentSkipListMap<Long, CompletableFuture<Long>> waiting = new ConcurrentSkipListMap<>();
  private final LongSupplier appliedIndex;

  /** @param appliedIndex the replica's applied index; must be set before {@link #advance} is called */
  public AppliedWaiters(LongSupplier appliedIndex) {
    this.appliedIndex = appliedIndex;
  }

  /** Completes with the applied index once it is at least {@code index}: at once if it already is. */
  public CompletionStage<Long> await(long index) {
    long now = appliedIndex.getAsLong();
    if (now >= index) {
      return CompletableFuture.completedFuture(now);
    }
    CompletableFuture<Long> applied = waiting.computeIfAbsent(index, i -> new CompletableFuture<>());
    // The index may have been applied between the check and the registration, with nobody to see it.
    advance(appliedIndex.getAsLong());
    return applied.minimalCompletionStage();
  }

  /** The applied index is now {@code applied}: completes every wait at or below it. */
  public void advance(long applied) {
    Map.Entry<Long, CompletableFuture<Long>> first;
    while ((first = waiting.firstEntry()) != null && first.getKey() <= applied) {
      if (waiting.remove(first.getKey(), first.getValue())) {
        first.getValue().complete(applied);
      }
    }
  }
}
