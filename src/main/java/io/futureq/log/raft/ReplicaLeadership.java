package io.futureq.log.raft;

import io.futureq.log.LogUnavailableException;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;

/**
 * What a replica tells of its leadership: to the one subscriber (the write leader's placement) whether it leads
 * now, and to whoever waits whether it is ready to lead. Told by its state machine's Ratis callbacks: a leader
 * change names the next leader, and only once one is known, so a leader stepping down (its majority lost, or its
 * leadership handed over) is told apart, as it stops leading; until then the placement went on restarting a write
 * leader for a term that was over.
 */
final class ReplicaLeadership {
  private final Supplier<RaftServer.Division> division;
  private final Object lock = new Object();
  private LongConsumer leads;
  private Runnable follows;
  /** Waiting for this replica, leading, to apply the first entry of its term; see {@link #whenReady}. */
  private final Set<CompletableFuture<Void>> readyWaiters = ConcurrentHashMap.newKeySet();

  /** @param division this replica's division, or null while it has none (not started, or closed) */
  ReplicaLeadership(Supplier<RaftServer.Division> division) {
    this.division = division;
  }

  /** A new leader is known: {@code self} when it is this replica. */
  void leaderChanged(RaftPeerId self, RaftPeerId newLeader) {
    if (self.equals(newLeader)) {
      tell();
    } else {
      stopped(newLeader + " leads");
    }
  }

  /** This replica stopped leading, before any next leader is known. */
  void stoppedLeading() {
    stopped("no leader known yet");
  }

  private void stopped(String why) {
    readyWaiters.forEach(waiter -> waiter.completeExceptionally(new LogUnavailableException(
        "this replica no longer leads the Raft group (" + why + ")", null)));
    synchronized (lock) {
      if (follows != null) {
        follows.run();
      }
    }
  }

  /** This replica, leading, applied the first entry of its term. */
  void ready() {
    readyWaiters.forEach(waiter -> waiter.complete(null));
  }

  /**
   * Completes once this replica leads and has applied the first entry of its term: a Raft leader commits nothing of
   * earlier terms before that entry, and its machine applies in order, so its store then holds all that earlier
   * leaders committed. Fails when this replica does not lead, or stops leading first.
   */
  CompletableFuture<Void> whenReady() {
    CompletableFuture<Void> ready = new CompletableFuture<>();
    readyWaiters.add(ready);
    ready.whenComplete((done, failure) -> readyWaiters.remove(ready));
    // Asked after the waiter is in place, so a readiness or a change in between is not missed.
    RaftServer.Division now = division.get();
    if (now == null || !now.getInfo().isLeader()) {
      ready.completeExceptionally(new LogUnavailableException("this replica does not lead the Raft group", null));
    } else if (now.getInfo().isLeaderReady()) {
      ready.complete(null);
    }
    return ready;
  }

  /** See {@link RaftEventLog#onLeadership}. */
  void subscribe(LongConsumer leads, Runnable follows) {
    synchronized (lock) {
      this.leads = leads;
      this.follows = follows;
      tell();
    }
  }

  /** Tells the subscriber whether this replica leads now, and in which term. */
  private void tell() {
    synchronized (lock) {
      if (leads == null) {
        return;
      }
      RaftServer.Division now = division.get();
      if (now != null && now.getInfo().isLeader()) {
        leads.accept(now.getInfo().getCurrentTerm());
      } else {
        follows.run();
      }
    }
  }
}
