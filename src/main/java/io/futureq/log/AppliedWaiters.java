package io.futureq.log;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * Callers waiting until a replica has applied a log index and announced what it applied. An
 * {@link EventLog} completes them as it goes; thread-safe: waits come from any thread, the log
 * advances from its own. The index is its own, not the log's applied index: the log advances it only
 * after the announcements, so a wait never completes between the two.
 */
public final class AppliedWaiters {
  private final ConcurrentSkipListMap<Long, CompletableFuture<Long>> waiting = new ConcurrentSkipListMap<>();
  private volatile long applied;

  /** @param applied the index the replica starts at */
  public AppliedWaiters(long applied) {
    this.applied = applied;
  }

  /** Completes with the applied index once it is at least {@code index}: at once if it already is. */
  public CompletionStage<Long> await(long index) {
    long now = applied;
    if (now >= index) {
      return CompletableFuture.completedFuture(now);
    }
    CompletableFuture<Long> wait = waiting.computeIfAbsent(index, i -> new CompletableFuture<>());
    // The index may have been applied between the check and the registration, with nobody to see it.
    complete(applied);
    return wait.minimalCompletionStage();
  }

  /** The replica has applied and announced up to {@code index}: completes every wait at or below it. */
  public void advance(long index) {
    if (index > applied) {
      applied = index;
    }
    complete(applied);
  }

  private void complete(long upTo) {
    Map.Entry<Long, CompletableFuture<Long>> first;
    while ((first = waiting.firstEntry()) != null && first.getKey() <= upTo) {
      if (waiting.remove(first.getKey(), first.getValue())) {
        first.getValue().complete(upTo);
      }
    }
  }
}
