package io.futureq.log.raft;

import java.io.IOException;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;

/**
 * Whether this replica's store is current enough for its topics to deliver from. A follower that has
 * not heard from the Raft leader within the lease (it was paused by SIGSTOP or a long GC, or cut
 * off), or a leader that has not heard from a majority (cut off, perhaps already replaced), may be
 * missing committed cancels, acks and deletes: its groups would deliver what the rest of the cluster
 * already answered "cancelled" for. So after a lapse it is not current until it is
 * in touch again and has applied a barrier: an empty entry appended through the leader, which orders
 * after everything committed before it (Raft's read-index idea); then one more check period passes
 * for the announcements of the entries it applied to reach the topics.
 */
final class ReplicaLease implements AutoCloseable {
  static final Duration CHECK_EVERY = Duration.ofMillis(50);
  /**
   * STARTING until the first contact after start: a starting node's topics wait for it to be ready and
   * its groups for the local apply of their registration, so a barrier then would only add an entry.
   */
  private enum State { STARTING, LAPSED, CATCHING_UP, SETTLING, CURRENT }

  private final RaftServer server;
  private final long leaseMs;
  /** Appends a barrier and completes once this replica has applied it. */
  private final Supplier<CompletionStage<?>> barrier;
  private final ScheduledExecutorService checks;
  private volatile boolean current = true;
  private State state = State.STARTING;
  /** Bumped on every lapse: a barrier from before it proves nothing. */
  private long lapses;

  /** @param lease how long without contact still counts as current: the election timeout */
  ReplicaLease(RaftServer server, Duration lease, Supplier<CompletionStage<?>> barrier) {
    this.server = server;
    this.leaseMs = lease.toMillis();
    this.barrier = barrier;
    this.checks = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "futureq-replica-lease");
      t.setDaemon(true);
      return t;
    });
    checks.scheduleWithFixedDelay(this::check, 0, CHECK_EVERY.toMillis(), TimeUnit.MILLISECONDS);
  }

  boolean current() {
    return current;
  }

  private synchronized void check() {
    boolean contact = inContact();
    if (state == State.STARTING) {
      state = contact ? State.CURRENT : State.STARTING;
      return;
    }
    if (!contact) {
      if (state != State.LAPSED) {
        lapses++;
      }
      current = false;
      state = State.LAPSED;
      return;
    }
    switch (state) {
      case LAPSED -> {
        state = State.CATCHING_UP;
        long lapse = lapses;
        barrier.get().whenComplete((applied, failure) -> barrierDone(lapse, failure == null));
      }
      case SETTLING -> {
        state = State.CURRENT;
        current = true;
      }
      default -> { }
    }
  }

  private synchronized void barrierDone(long lapse, boolean applied) {
    if (lapse == lapses && state == State.CATCHING_UP) {
      state = applied ? State.SETTLING : State.LAPSED;
    }
  }

  /** A follower heard from its leader, a leader from a majority of the voters, within the lease. */
  private boolean inContact() {
    try {
      RaftServer.Division division = server.getDivision(RaftServerFactory.GROUP_ID);
      DivisionInfo info = division.getInfo();
      if (!info.isAlive()) {
        return false;
      }
      RoleInfoProto role = info.getRoleInfoProto();
      if (role.getRole() == RaftPeerRole.LEADER) {
        Set<String> voters = new HashSet<>();
        division.getRaftConf().getCurrentPeers().forEach(p -> voters.add(p.getId().toString()));
        int heard = 1; // itself
        for (ServerRpcProto follower : role.getLeaderInfo().getFollowerInfoList()) {
          if (voters.contains(follower.getId().getId().toStringUtf8())
              && follower.getLastRpcElapsedTimeMs() <= leaseMs) {
            heard++;
          }
        }
        return heard > voters.size() / 2;
      }
      return info.getLeaderId() != null && role.hasFollowerInfo()
          && role.getFollowerInfo().getLeaderInfo().getLastRpcElapsedTimeMs() <= leaseMs;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  @Override
  public void close() {
    checks.shutdownNow();
  }
}
