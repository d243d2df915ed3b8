package io.futureq.log.leader;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * A node's direct way to a write leader on the same node, shared by its {@link WriteRouter} and its
 * {@link LogWriter}: while the router has a leader of this node listed, writers hand their appends to it themselves
 * (one mailbox hand-off per append instead of two), and the router still learns of each one, so that it fails those
 * the leader had not answered when it stops. While no leader of this node is listed, appends go to the router.
 *
 * <p>Appends sent at the moment the lane opens may reach the leader in another order than they were sent (those the
 * router held, then those sent here); appends of one writer that waits for each answer never are.
 */
public final class LeaderLane {
  private volatile Route open;

  /** Hands {@code append} to this node's leader; false when none is listed here (the router takes it then). */
  boolean offer(LogLeader.Append append) {
    Route route = open;
    return route != null && route.send(append);
  }

  /** From now on writers hand their appends to {@code route}'s leader (null: to the router). Router only. */
  void open(Route route) {
    this.open = route;
  }

  /** Closes the lane if it leads to {@code route}. Router only. */
  void closeIf(Route route) {
    if (open == route) {
      open = null;
    }
  }

  /** The appends handed to one leader of this node and not answered yet. */
  static final class Route {
    private final ActorRef<LogLeader.Command> leader;
    private final Map<Long, LogLeader.Append> unanswered = new ConcurrentHashMap<>();
    private final AtomicLong nextId = new AtomicLong();
    private boolean stopped;

    Route(ActorRef<LogLeader.Command> leader) {
      this.leader = leader;
    }

    /**
     * Hands {@code append} to the leader, unless it was seen stopped: then false. Under the lock, so that an append
     * is either refused or found by {@link #stopped()}: none is lost to a leader that stopped on the way.
     */
    synchronized boolean send(LogLeader.Append append) {
      if (stopped) {
        return false;
      }
      long id = nextId.getAndIncrement(); // by id: a record's hash would walk the whole command
      unanswered.put(id, append);
      append.result().whenComplete((result, failure) -> unanswered.remove(id));
      leader.tell(append);
      return true;
    }

    /** The leader stopped: later sends are refused; returns what it had not answered. */
    synchronized List<LogLeader.Append> stopped() {
      stopped = true;
      return List.copyOf(unanswered.values());
    }
  }
}
