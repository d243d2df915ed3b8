package io.futureq.log.raft;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.RaftGroupId;
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
 * for the announcements of the entries it applied to reach the topics (and each group then asks its
 * topic to confirm they did: {@code group/ReplicaCatchUp}).
 *
 * <p>Being current is a lease with a deadline, not a flag the checks lower: each check that finds
 * contact extends it to the last contact plus the lease, and {@link #current()} compares that with the
 * monotonic clock. A process frozen past its deadline (SIGSTOP, a long pause) is therefore not current
 * the moment it resumes, before any check has run: its groups' timers fire first on resume, and with a
 * flag they delivered from the stale replica. The split-brain resolver's short removal margin
 * (conf/futureq.conf) counts on this: a crashed or cut-off host of a topic stops delivering within
 * the lease, so the survivors may start its topics a few seconds after downing it.
 */
final class ReplicaLease implements AutoCloseable {
  static final Duration CHECK_EVERY = Duration.ofMillis(50);
  /**
   * STARTING until the first contact after start: a starting node's topics wait for it to be ready and
   * its groups for the local apply of their registration, so a barrier then would only add an entry.
   */
  private enum State { STARTING, LAPSED, CATCHING_UP, SETTLING, CURRENT }

  /** What the contact source answers without a leader (or, as leader, without a majority) to hear from. */
  static final long NO_CONTACT = Long.MAX_VALUE;

  /** Milliseconds since this replica last heard from the group (see {@link #sinceContactMs}). */
  private final LongSupplier sinceContactMs;
  private final long leaseMs;
  /** Appends a barrier and completes once this replica has applied it. */
  private final Supplier<CompletionStage<?>> barrier;
  private final LongSupplier nanoTime;
  private final ScheduledExecutorService checks;
  /** {@link #nanoTime} past which this replica is not current without a newer contact. */
  private volatile long currentUntilNanos;
  /** Written under this object's lock, read by {@link #current()} without it. */
  private volatile State state = State.STARTING;
  /** Bumped on every lapse: a barrier from before it proves nothing. */
  private long lapses;
  /** Bumped each time it is current again after a lapse, before {@link #state} turns CURRENT. */
  private volatile long recoveries;

  /** @param lease how long without contact still counts as current: the election timeout */
  static ReplicaLease start(RaftServer server, RaftGroupId groupId, Duration lease,
      Supplier<CompletionStage<?>> barrier) {
    ScheduledExecutorService checks = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "futureq-replica-lease");
      t.setDaemon(true);
      return t;
    });
    ReplicaLease replicaLease = new ReplicaLease(() -> sinceContactMs(server, groupId), lease, barrier,
        System::nanoTime, checks);
    checks.scheduleWithFixedDelay(replicaLease::check, 0, CHECK_EVERY.toMillis(), TimeUnit.MILLISECONDS);
    return replicaLease;
  }

  /** For {@link #start} and tests, which call {@link #check} themselves; {@code checks} is shut down on close. */
  ReplicaLease(LongSupplier sinceContactMs, Duration lease, Supplier<CompletionStage<?>> barrier,
      LongSupplier nanoTime, ScheduledExecutorService checks) {
    this.sinceContactMs = sinceContactMs;
    this.leaseMs = lease.toMillis();
    this.barrier = barrier;
    this.nanoTime = nanoTime;
    this.checks = checks;
    this.currentUntilNanos = nanoTime.getAsLong() + TimeUnit.MILLISECONDS.toNanos(leaseMs);
  }

  /** See {@link io.futureq.log.EventLog#recoveries()}. */
  long recoveries() {
    return recoveries;
  }

  /** STARTING counts: a starting node's topics wait for its readiness instead. */
  boolean current() {
    State now = state;
    return (now == State.CURRENT || now == State.STARTING) && nanoTime.getAsLong() - currentUntilNanos < 0;
  }

  synchronized void check() {
    long now = nanoTime.getAsLong();
    // Past the deadline since the last check: this process did not run for a while. Contact now
    // does not say what was committed meanwhile, so that is a lapse too.
    boolean expired = now - currentUntilNanos >= 0;
    long since = sinceContactMs.getAsLong();
    boolean contact = since <= leaseMs;
    if (contact) {
      currentUntilNanos = now + TimeUnit.MILLISECONDS.toNanos(leaseMs - since);
    }
    if (state == State.STARTING) {
      state = contact ? State.CURRENT : State.STARTING;
      return;
    }
    if (!contact || expired) {
      if (state != State.LAPSED) {
        lapses++;
      }
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
        recoveries++;
        state = State.CURRENT;
      }
      default -> { }
    }
  }

  private synchronized void barrierDone(long lapse, boolean applied) {
    if (lapse == lapses && state == State.CATCHING_UP) {
      state = applied ? State.SETTLING : State.LAPSED;
    }
  }

  /**
   * Milliseconds since a follower last heard from its leader, or since a leader last heard from a
   * majority of the voters (the longest silence among the followers it needs, itself counting as
   * one); {@link #NO_CONTACT} without a leader or a division.
   */
  private static long sinceContactMs(RaftServer server, RaftGroupId groupId) {
    try {
      RaftServer.Division division = server.getDivision(groupId);
      DivisionInfo info = division.getInfo();
      if (!info.isAlive()) {
        return NO_CONTACT;
      }
      RoleInfoProto role = info.getRoleInfoProto();
      if (role.getRole() == RaftPeerRole.LEADER) {
        Set<String> voters = new HashSet<>();
        division.getRaftConf().getCurrentPeers().forEach(p -> voters.add(p.getId().toString()));
        List<Long> silences = new ArrayList<>();
        for (ServerRpcProto follower : role.getLeaderInfo().getFollowerInfoList()) {
          if (voters.contains(follower.getId().getId().toStringUtf8())) {
            silences.add(follower.getLastRpcElapsedTimeMs());
          }
        }
        int needed = voters.size() / 2; // besides itself
        if (needed == 0) {
          return 0;
        }
        if (silences.size() < needed) {
          return NO_CONTACT;
        }
        Collections.sort(silences);
        return silences.get(needed - 1);
      }
      if (info.getLeaderId() == null || !role.hasFollowerInfo()) {
        return NO_CONTACT;
      }
      return role.getFollowerInfo().getLeaderInfo().getLastRpcElapsedTimeMs();
    } catch (IOException | RuntimeException e) {
      return NO_CONTACT;
    }
  }

  @Override
  public void close() {
    if (checks != null) {
      checks.shutdownNow();
    }
  }
}
