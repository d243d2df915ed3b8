package io.futureq.log.raft;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Whether this replica has caught up since it started, as {@link RaftEventLog#caughtUp()} defines it: it applied a
 * barrier appended after it started, it is current ({@link ReplicaLease}) and it knows a leader. The barrier is
 * appended when first asked, and again when asked after it failed; any thread may ask.
 */
final class CatchUpSinceStart {
  private final Supplier<CompletableFuture<Long>> barrier;
  private final ReplicaLease lease;
  private final ReplicaView replica;
  /** Appended by the first {@link #behind} call, again after one failed. */
  private CompletableFuture<Long> startBarrier;

  /** @param barrier appends a barrier and completes with its log index once this replica has applied it */
  CatchUpSinceStart(Supplier<CompletableFuture<Long>> barrier, ReplicaLease lease, ReplicaView replica) {
    this.barrier = barrier;
    this.lease = lease;
    this.replica = replica;
  }

  /** Why this replica has not caught up since it started, or null when it has. */
  String behind() {
    CompletableFuture<Long> applied;
    synchronized (this) {
      if (startBarrier == null || startBarrier.isCompletedExceptionally()) {
        startBarrier = barrier.get();
      }
      applied = startBarrier;
    }
    if (!applied.isDone()) {
      return "Raft replica applying what was committed before it started (applied index " + replica.appliedIndex()
          + ")";
    }
    if (!lease.current()) {
      return "Raft replica out of touch with the leader, or catching up after it was";
    }
    return replica.status().leaderId().isEmpty() ? "no Raft leader known" : null;
  }
}
