package io.futureq.group;

import org.apache.pekko.actor.typed.ActorRef;

/**
 * Whether a group has heard of everything its replica applied while it was out of touch with the Raft
 * group. The replica is current again once it has applied a barrier appended after the lapse
 * ({@code ReplicaLease}), but the removals it applied on the way (cancels, expiries) reach the group
 * through its topic's mailboxes, possibly after the group's next pump: it then delivered messages
 * already cancelled. So after each recovery the group asks its topic's {@link DueFeed}, through which
 * those removals pass, once ({@link DueFeed.CatchUp}); the feed answers behind them, and the group
 * delivers nothing until the answer is in. Called only while the replica is current.
 */
final class ReplicaCatchUp {
  private final GroupContext gc;
  private final ActorRef<ConsumerGroup.Command> group;
  /** The replica's recovery count the feed last confirmed. */
  private long confirmed;
  private boolean asked;

  ReplicaCatchUp(GroupContext gc, ActorRef<ConsumerGroup.Command> group) {
    this.gc = gc;
    this.group = group;
    this.confirmed = gc.eventLog().recoveries();
  }

  /**
   * True when the group may deliver; otherwise the feed has been asked and a {@link ConsumerGroup.CaughtUp}
   * follows.
   */
  boolean caughtUp() {
    long recoveries = gc.eventLog().recoveries();
    if (recoveries == confirmed) {
      return true;
    }
    if (!asked) {
      asked = true;
      gc.feed().tell(new DueFeed.CatchUp(recoveries, group));
    }
    return false;
  }

  void caughtUp(long recoveries) {
    asked = false;
    confirmed = Math.max(confirmed, recoveries);
  }
}
