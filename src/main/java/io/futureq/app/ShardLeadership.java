package io.futureq.app;

import io.futureq.log.leader.LeaderPlacement;
import io.futureq.log.raft.RaftEventLog;
import java.util.function.LongConsumer;

/**
 * Whether this node leads one log shard, for the shard's {@link LeaderPlacement}, which runs for the node's life
 * while the node takes up and gives up its replica of the shard: it follows the replica held now, and without one
 * this node follows (another node leads). A replica given up is no longer heard, even if it still reports.
 */
final class ShardLeadership implements LeaderPlacement.Leadership {
  private LongConsumer leads = term -> { };
  private Runnable follows = () -> { };
  private RaftEventLog replica;
  /**
   * Bumped (under this object's lock) at each change of replica: what an earlier replica reports is ignored. Read
   * without the lock: a replica reports from Ratis's threads while holding its own lock, and this object holds its
   * lock while it subscribes to that replica, so taking it there could deadlock.
   */
  private volatile long generation;

  /** @param replica this node's replica of the shard at start, or null when it holds none */
  ShardLeadership(RaftEventLog replica) {
    this.replica = replica;
  }

  @Override
  public synchronized void onLeadership(LongConsumer leads, Runnable follows) {
    this.leads = leads;
    this.follows = follows;
    subscribe();
  }

  /** From now on, follows {@code replica} (taken up), or, with null (given up), says this node follows. */
  synchronized void follow(RaftEventLog replica) {
    this.replica = replica;
    subscribe();
  }

  private void subscribe() {
    long current = ++generation;
    if (replica == null) {
      follows.run();
      return;
    }
    LongConsumer toldLeads = leads;
    Runnable toldFollows = follows;
    replica.onLeadership(term -> {
      if (isCurrent(current)) {
        toldLeads.accept(term);
      }
    }, () -> {
      if (isCurrent(current)) {
        toldFollows.run();
      }
    });
  }

  private boolean isCurrent(long subscription) {
    return subscription == generation;
  }
}
