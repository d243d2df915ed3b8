package io.futureq.log.raft;

import io.futureq.config.RaftSettings;
import io.futureq.log.Barrier;
import io.futureq.log.BrokerStateMachine;
import io.futureq.log.CommandResult;
import io.futureq.log.EventLog;
import io.futureq.log.LogClosedException;
import io.futureq.log.LogUnavailableException;
import io.futureq.log.WriteQueueLimit;
import io.futureq.log.proto.LogCommand;
import io.futureq.storage.OrderedStore;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;

/**
 * The clustered {@link EventLog}: this node's Ratis server (one replica of the store), to which the write leader's
 * entries are submitted in-process while this replica leads ({@link LeaderSubmit}); the replica's own commands (its
 * barriers) go to the leader one at a time, in-process when it is this replica, else through a client
 * ({@link ReplicaSubmit}). Each entry is applied by {@link RatisStateMachine} on every replica, in log order.
 *
 * <p>Contract, beyond {@link EventLog}'s: a write leader's entry is appended only on the leading replica (else it
 * fails at once, not appended); any other command works on any node and goes to the leader. The returned stage
 * completes with the results the leader computed after the entry was committed by a majority and applied on the
 * leader. This node may apply it a little later. A
 * failed stage carries {@link io.futureq.log.LogUnavailableException} when no leader committed the
 * entry within the request timeout (no quorum, leader unreachable), {@link io.futureq.log.LogClosedException}
 * after {@link #close}, {@link java.util.concurrent.TimeoutException} if no answer came within twice
 * the timeout, and {@link IllegalArgumentException} for a command that can never be applied. Unlike
 * the local log, the first and the last mean the outcome is unknown: the entry may still commit.
 *
 * <p>The {@link AppliedListener} is told of every applied command on every replica (followers
 * included), on Ratis's apply thread. After a restart, entries already in the store are skipped
 * and not announced again.
 */
public final class RaftEventLog implements EventLog {
  /** Protobuf framing of one command inside an entry: tag and length. */
  private static final int COMMAND_FRAMING = 8;
  private final RaftSettings settings;
  private final int shard;
  private final RaftServer server;
  private final ReplicaView replica;
  private final RatisStateMachine stateMachine;
  private final LeaderSubmit submissions;
  private final ReplicaSubmit ownCommands;
  private final Membership membership;
  private final ReplicaLease lease;
  private final CatchUpSinceStart catchUp;
  private final ReplicaHost host;
  /** Runs once this log closed: the single shard's log started by {@link #start} closes its server. */
  private volatile Runnable afterClose = () -> { };
  private volatile boolean closed;

  /**
   * Built by {@link ReplicaHost} once the shard's division runs; starts the lease. The host closes the server.
   */
  RaftEventLog(ReplicaHost host, RaftSettings settings, int shard, RaftServer server, ReplicaView replica,
      RatisStateMachine stateMachine, LeaderSubmit submissions, ReplicaSubmit ownCommands, Membership membership) {
    this.host = host;
    this.settings = settings;
    this.shard = shard;
    this.submissions = submissions;
    this.server = server;
    this.replica = replica;
    this.stateMachine = stateMachine;
    this.ownCommands = ownCommands;
    this.membership = membership;
    this.lease = ReplicaLease.start(server, RaftServerFactory.groupId(shard), settings.electionTimeout(),
        () -> Barrier.applied(this, this, settings.requestTimeout()));
    this.catchUp = new CatchUpSinceStart(() -> Barrier.applied(this, this, settings.requestTimeout()), lease,
        replica);
  }

  /**
   * Starts this node's Raft server on {@code settings.address()} with its log in
   * {@code settings.storageDir()}, and returns once it runs; a leader may not be elected yet (appends
   * wait for one). The caller keeps owning {@code store} and closes it after this log.
   *
   * @param stateMachine the only writer of {@code store}, opened on it
   * @param limit what a follower's commands may queue for the leader; appends beyond fail with
   *     {@link io.futureq.log.LogOverloadedException}
   * @param applyNanos told how long each applied entry took to prepare and write
   * @param onFatal told, on Ratis's apply thread, when this replica can apply no more entries (its
   *     store refuses writes, a snapshot cannot be installed, its settings disagree with the log);
   *     Ratis then stops this server
   * @throws IllegalStateException if {@code store} has applied entries but the Raft storage is new:
   *     the two directories must be kept or wiped together
   * @throws UncheckedIOException if the server cannot start (address in use, storage locked or corrupt)
   */
  public static RaftEventLog start(RaftSettings settings, OrderedStore store, BrokerStateMachine stateMachine,
      WriteQueueLimit limit, AppliedListener listener, LongConsumer applyNanos, Consumer<Throwable> onFatal) {
    return start(settings, store, stateMachine, limit, listener, applyNanos, onFatal, properties -> { });
  }

  /** As above; {@code tuning} may change Ratis properties, so tests can reach states such as a crash's. */
  static RaftEventLog start(RaftSettings settings, OrderedStore store, BrokerStateMachine stateMachine,
      WriteQueueLimit limit, AppliedListener listener, LongConsumer applyNanos, Consumer<Throwable> onFatal,
      Consumer<RaftProperties> tuning) {
    ReplicaHost host = ReplicaHost.start(settings, 1, List.of(new ReplicaHost.Shard(0, store, stateMachine, listener,
        null)), limit, applyNanos, onFatal, tuning);
    RaftEventLog log = host.logs().get(0);
    log.afterClose = host::close;
    return log;
  }

  /**
   * As {@link #start(RaftSettings, OrderedStore, BrokerStateMachine, WriteQueueLimit, AppliedListener, LongConsumer,
   * Consumer)} for several log shards: one Ratis server, one group per shard this node holds ({@code held}, of
   * {@code count}), each shard's replica applying to its own store. The host closes them all.
   */
  public static ReplicaHost startShards(RaftSettings settings, int count, List<ReplicaHost.Shard> held,
      WriteQueueLimit limit, LongConsumer applyNanos, Consumer<Throwable> onFatal) {
    return ReplicaHost.start(settings, count, held, limit, applyNanos, onFatal, properties -> { });
  }

  /** Whether this node's Raft storage holds log shard {@code shard}'s group (it held a replica of it before). */
  public static boolean holdsGroup(RaftSettings settings, int shard) {
    return Files.isDirectory(RaftServerFactory.groupDir(settings, shard));
  }

  /** Closing this log leaves the server running (a single shard's log would close it): the shard is given up. */
  void keepServerOnClose() {
    afterClose = () -> { };
  }

  /** The server this replica runs in, with this node's other shards' replicas. */
  ReplicaHost host() {
    return host;
  }

  /** The log shard this is. */
  public int shard() {
    return shard;
  }

  /**
   * The write leader's entries ({@code LeaderEntry}) go to this node's own server in-process (see
   * {@link LeaderSubmit}), and only while this replica leads: one that reached another node's leader would be fenced
   * there anyway, and failing at once tells the writer sooner. Other commands (the replicas' barriers) go to the
   * leader wherever it is, one at a time ({@link ReplicaSubmit}: in-process when it is this replica), retried until
   * the request timeout.
   */
  @Override
  public CompletionStage<CommandResult> append(LogCommand command) {
    return append(command, null);
  }

  /** As {@link #append(LogCommand)}; {@code onLeaderDisk} is told of a leader entry this leading replica appends. */
  @Override
  public CompletionStage<CommandResult> append(LogCommand command, CompletableFuture<LeaderAck> onLeaderDisk) {
    if (closed) {
      return CompletableFuture.failedFuture(new LogClosedException());
    }
    if (command.getCommandCase() == LogCommand.CommandCase.COMMAND_NOT_SET) {
      return CompletableFuture.failedFuture(new IllegalArgumentException("log command without a body: " + command));
    }
    int bytes = command.getSerializedSize() + COMMAND_FRAMING;
    if (bytes > settings.maxEntryBytes()) {
      return CompletableFuture.failedFuture(new IllegalArgumentException("a log command of " + bytes
          + " bytes exceeds futureq.raft.max-entry-size (" + settings.maxEntryBytes() + " bytes)"));
    }
    if (command.getCommandCase() != LogCommand.CommandCase.LEADER_ENTRY) {
      return ownCommands.submit(command, bytes);
    }
    if (!leading()) {
      return CompletableFuture.failedFuture(new LogUnavailableException("this node's Raft replica does not lead: "
          + "the write leader's entry was not appended", null));
    }
    return submissions.submit(command, onLeaderDisk);
  }

  /** How many of this node's own commands (not the write leader's) went to {@code peer} first (tests). */
  long entriesSentTo(String peer) {
    return ownCommands.sentTo(RaftPeerId.valueOf(peer));
  }

  /**
   * From now on, {@code leads} is told the term whenever this node's replica becomes the Raft leader, and
   * {@code follows} whenever another replica leads or none is known (on a Ratis thread); one of them is told at once
   * what holds now, so a change before this call is not missed. Where this node's write leader runs follows it.
   */
  public void onLeadership(LongConsumer leads, Runnable follows) {
    stateMachine.onLeadership(leads, follows);
  }

  /** The index of the last entry applied to this node's store. */
  @Override
  public long appliedIndex() {
    return stateMachine.appliedIndex();
  }

  @Override
  public CompletionStage<Long> whenApplied(long index) {
    return stateMachine.whenApplied(index);
  }

  /**
   * As the leader, no barrier: once this replica is ready to lead (the first entry of its term applied), its store
   * holds everything committed before it led, and what it committed since was applied here before it was answered.
   * A barrier would cost a new leader's write leader one more commit round of the failover.
   *
   * <p>Elsewhere it fails at once. A write leader runs for a term its replica led, and a replica that does not lead
   * now never leads that term again, so every entry of that leader would be fenced. Its placement may still start one
   * after the term ended here (the hand-over failed the entry in flight, and the news of the next leader is on its
   * way): recovering it through a barrier of this replica waited out the whole timeout on a replica just removed
   * from its group, and the writes handed to that leader waited as long.
   */
  @Override
  public CompletableFuture<Long> readyToLead(Duration within) {
    if (!leading()) {
      return CompletableFuture.failedFuture(new LogUnavailableException("this node's Raft replica does not lead "
          + "log shard " + shard + " now: no write leader recovers here", null));
    }
    return stateMachine.whenLeaderReady().orTimeout(within.toMillis(), TimeUnit.MILLISECONDS)
        .thenApply(ready -> appliedIndex());
  }

  /**
   * False while this replica has not heard from the leader (as leader: from a majority) within the
   * election timeout, and after such a lapse until it applied what it then learnt was committed; see
   * {@link ReplicaLease}.
   */
  @Override
  public boolean current() {
    return lease.current();
  }

  @Override
  public long recoveries() {
    return lease.recoveries();
  }

  /**
   * Whether this replica has caught up since it started: it has applied a barrier it appended after
   * starting (so everything committed before that), it follows a known leader, and it has not since
   * lost touch with the leader (see {@link #current()}). Not "applied index equals commit index": under
   * steady writes a replica's apply thread is nearly always an entry behind what it has just learnt is
   * committed, and a busy follower restarted into such a cluster never looked caught up.
   */
  public boolean caughtUp() {
    return behind() == null;
  }

  /** Why this replica has not {@linkplain #caughtUp caught up}, or null when it has. */
  public String behind() {
    return closed ? "the Raft log is closed" : catchUp.behind();
  }

  /**
   * Whether this replica leads the Raft group now. Cluster-wide counters count an applied entry on the leader
   * only, so that the cluster counts it once, not once per replica.
   */
  public boolean leading() {
    return replica.leading();
  }

  /** What this node knows of the group now; {@link RaftStatus.Role#STOPPED} once closed or failed. */
  public RaftStatus status() {
    return replica.status();
  }

  /**
   * Ratis's own view of this replica's role, in one line: as leader, how long since each follower last answered;
   * as follower, which leader it knows and how long since it heard from it. Says where replication stalls when a
   * test times out waiting for it.
   */
  String ratisRoleInfo() {
    return replica.roleInfo();
  }

  /**
   * Adds node {@code id}, whose Raft server listens on {@code address}, as a voting member: first as a
   * listener until it caught up with the log (or installed a snapshot), then promoted. Completes when
   * the new configuration is committed; does nothing if it already is a member at that address. The
   * new node must run with {@link RaftSettings#join()} on.
   */
  public CompletableFuture<Void> addPeer(String id, String address) {
    return membership.addPeer(id, address);
  }

  /**
   * Removes node {@code id} from the group (voting member or listener); completes when the new
   * configuration is committed. The removed node's server keeps running until it is stopped.
   */
  public CompletableFuture<Void> removePeer(String id) {
    return membership.removePeer(id);
  }

  /**
   * If this replica leads, hands leadership to another member and completes once it has (or the attempt ended):
   * a node that stops on purpose spares the others an election timeout.
   */
  public CompletableFuture<Void> handOverLeadership() {
    return membership.handOverLeadership();
  }

  /**
   * Commits and answers everything appended so far (within twice the request timeout); the log that owns the server
   * (this node's first shard) then stops it, with every shard's division.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    lease.close();
    try {
      ownCommands.close();
      membership.close();
    } finally {
      afterClose.run();
    }
  }
}
