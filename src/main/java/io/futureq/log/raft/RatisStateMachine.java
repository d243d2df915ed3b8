package io.futureq.log.raft;

import com.google.protobuf.InvalidProtocolBufferException;
import io.futureq.log.AppliedWaiters;
import io.futureq.log.BrokerStateMachine;
import io.futureq.log.CommandResult;
import io.futureq.log.EventLog.AppliedListener;
import io.futureq.log.proto.ApplyResults;
import io.futureq.log.proto.LogCommand;
import io.futureq.log.proto.LogEntry;
import io.futureq.storage.OrderedStore;
import io.futureq.storage.StorageException;
import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Ratis state machine of one replica: a thin adapter that applies each committed Raft entry (a
 * {@link LogEntry}) through {@link BrokerStateMachine}, and snapshots the store as RocksDB checkpoints.
 *
 * <p>Durability: a batch is written without fsync, because the Raft log is the durable record. On
 * restart Ratis replays from the latest snapshot; entries at or below the store's own applied index
 * are skipped, so replay never applies an entry twice. A replica whose store fails to write, or
 * whose store is corrupt, throws out of {@link #applyTransaction}: Ratis then stops this server rather
 * than let the replica diverge. An entry every replica rejects alike (not a LogEntry, a command
 * without a body) fails its appends and changes nothing.
 *
 * <p>Ratis calls apply, snapshot and reinitialize from one thread; methods are synchronized anyway
 * because a snapshot install pauses the machine from another.
 */
final class RatisStateMachine extends BaseStateMachine {
  private static final Logger LOG = LoggerFactory.getLogger(RatisStateMachine.class);
  private static final Message REPLAYED =
      Message.valueOf(UnsafeByteOperations.unsafeWrap(ApplyResults.newBuilder().setReplayed(true).build()
          .toByteArray()));

  private final int shard;
  private final OrderedStore store;
  private final BrokerStateMachine machine;
  private final AppliedListener listener;
  private final LongConsumer applyNanos;
  private final Consumer<Throwable> onFatal;
  private final CheckpointStorage storage = new CheckpointStorage();
  private final LeaderDiskAcks diskAcks = new LeaderDiskAcks();
  private final LeaderSubmit submissions;
  private volatile long appliedIndex;
  private final AppliedWaiters waiters;
  /**
   * Term and index of the last entry written to the store, once known: snapshots are named by it,
   * so a snapshot's name is exactly the index its checkpoint holds (Raft's own applied index also
   * counts configuration and leader entries, which the store never sees).
   */
  private TermIndex storeTermIndex;
  private final ReplicaLeadership leadership = new ReplicaLeadership(this::division);

  /**
   * @param shard the log shard whose group this replica is of (named in its log lines)
   * @param onFatal told when this replica can apply no more (Ratis then stops its server)
   */
  RatisStateMachine(int shard, OrderedStore store, BrokerStateMachine machine, AppliedListener listener,
      LongConsumer applyNanos, Consumer<Throwable> onFatal, LeaderSubmit submissions) {
    this.shard = shard;
    this.store = store;
    this.submissions = submissions;
    this.machine = machine;
    this.listener = listener;
    this.applyNanos = applyNanos;
    this.onFatal = onFatal;
    this.appliedIndex = machine.appliedIndex();
    this.waiters = new AppliedWaiters(appliedIndex);
  }

  /** The index of the last entry applied to this replica's store. */
  long appliedIndex() {
    return appliedIndex;
  }

  /** See {@link io.futureq.log.EventLog#whenApplied}. */
  CompletionStage<Long> whenApplied(long index) {
    return waiters.await(index);
  }

  @Override
  public CheckpointStorage getStateMachineStorage() {
    return storage;
  }

  @Override
  public synchronized void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage)
      throws IOException {
    getLifeCycle().startAndTransition(() -> {
      super.initialize(server, groupId, raftStorage);
      storage.init(raftStorage);
      load();
    });
  }

  /**
   * One line per leader change (where a failover's time went can be read off the survivors' logs), and the
   * leadership listener is told whether this replica leads now.
   */
  @Override
  public void notifyLeaderChanged(RaftGroupMemberId member, RaftPeerId newLeader) {
    LOG.info("Raft leader is now {} (as {} sees it){}", newLeader == null ? "unknown" : newLeader, member.getPeerId(),
        shard == 0 ? "" : ", log shard " + shard);
    leadership.leaderChanged(member.getPeerId(), newLeader);
  }

  /** Ratis calls it as this replica stops leading; it names the next leader only once one is known. */
  @Override
  public void notifyNotLeader(Collection<TransactionContext> pendingEntries) {
    LOG.info("Raft replica {} stopped leading{}", getId(), shard == 0 ? "" : ", log shard " + shard);
    leadership.stoppedLeading();
  }

  /** Ratis calls it on the apply thread once the first entry of this leader's term is applied. */
  @Override
  public void notifyLeaderReady() {
    leadership.ready();
  }

  /** See {@link ReplicaLeadership#whenReady}. */
  CompletableFuture<Void> whenLeaderReady() {
    return leadership.whenReady();
  }

  /** See {@link RaftEventLog#onLeadership}. */
  void onLeadership(LongConsumer leads, Runnable follows) {
    leadership.subscribe(leads, follows);
  }

  private RaftServer.Division division() {
    try {
      RaftServer server = getServer().getNow(null);
      return server == null ? null : server.getDivision(getGroupId());
    } catch (IOException e) {
      return null;
    }
  }

  @Override
  public synchronized void pause() {
    if (getLifeCycleState() == LifeCycle.State.RUNNING) {
      getLifeCycle().transition(LifeCycle.State.PAUSING);
      getLifeCycle().transition(LifeCycle.State.PAUSED);
    }
  }

  /** Called after Ratis installed a snapshot from the leader into the state machine directory. */
  @Override
  public synchronized void reinitialize() throws IOException {
    storage.rescan();
    try {
      load();
    } catch (IOException e) {
      throw fatal("installing the leader's snapshot", e);
    } catch (RuntimeException e) {
      throw fatal("installing the leader's snapshot", e);
    }
    if (getLifeCycleState() == LifeCycle.State.PAUSED) {
      getLifeCycle().transition(LifeCycle.State.STARTING);
      getLifeCycle().transition(LifeCycle.State.RUNNING);
    }
  }

  /**
   * Makes the store at least as new as the latest snapshot. Normally it already is (it was written
   * past the snapshot before a restart); it is older after a snapshot install, or if unsynced writes
   * were lost with the machine, and then the checkpoint replaces its content.
   */
  private void load() throws IOException {
    CheckpointStorage.Checkpoint latest = storage.latest();
    if (latest == null) {
      return;
    }
    if (machine.appliedIndex() < latest.index()) {
      LOG.info("restoring the store (applied index {}) from snapshot {}", machine.appliedIndex(), latest.dir());
      try {
        store.restoreFrom(latest.dir());
      } catch (StorageException e) {
        throw new IOException("cannot install snapshot " + latest.dir() + ": " + e.getMessage(), e);
      }
      machine.reload();
      appliedIndex = machine.appliedIndex();
      // Nothing between the old and the new applied index was announced: readers must start over.
      try {
        listener.storeReplaced(appliedIndex);
      } catch (RuntimeException e) {
        LOG.error("announcing the snapshot install at log index {} failed", appliedIndex, e);
      }
      waiters.advance(appliedIndex);
    }
    // The store may be ahead of the snapshot; replay names the exact entry when it reaches it.
    storeTermIndex = latest.termIndex();
    setLastAppliedTermIndex(latest.termIndex());
  }

  /**
   * On the leader, for each client request: an entry this node submitted in-process ({@link LeaderSubmit}) keeps
   * its submission with the transaction, which Ratis hands to {@link #applyTransaction} on this node.
   */
  @Override
  public TransactionContext startTransaction(RaftClientRequest request) throws IOException {
    TransactionContext trx = super.startTransaction(request);
    LeaderSubmit.Submitted submitted = submissions.claim(request);
    if (submitted != null) {
      trx.setStateMachineContext(submitted);
    }
    return trx;
  }

  /**
   * Called on the leader only, in log order, under the log's lock, just before the entry is appended: notes where a
   * submission that waits for {@code ACK_LEVEL_LEADER} went (see {@link LeaderDiskAcks}). Not synchronized: it must
   * not wait for an entry being applied.
   */
  @Override
  public TransactionContext preAppendTransaction(TransactionContext trx) {
    if (trx.getStateMachineContext() instanceof LeaderSubmit.Submitted submitted
        && submitted.onLeaderDisk() != null) {
      RaftServer.Division division = division();
      if (division != null) {
        RaftLog raftLog = division.getRaftLog();
        diskAcks.appending(raftLog.getNextIndex(), division.getInfo().getCurrentTerm(), submitted.onLeaderDisk(),
            raftLog);
      }
    }
    return trx;
  }

  /** Ratis closes it with its server: the thread that answers {@code ACK_LEVEL_LEADER} stops too. */
  @Override
  public void close() throws IOException {
    diskAcks.close();
    super.close();
  }

  @Override
  public synchronized CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    LogEntryProto entry = trx.getLogEntry();
    TermIndex termIndex = TermIndex.valueOf(entry);
    long index = termIndex.getIndex();
    if (index <= machine.appliedIndex()) {
      if (index == machine.appliedIndex()) {
        storeTermIndex = termIndex;
      }
      updateLastAppliedTermIndex(termIndex);
      return CompletableFuture.completedFuture(REPLAYED);
    }
    long start = System.nanoTime();
    LeaderSubmit.Submitted submitted = trx.getStateMachineContext() instanceof LeaderSubmit.Submitted s ? s : null;
    List<LogCommand> commands;
    BrokerStateMachine.Prepared prepared;
    try {
      // This node's own submission is applied from the command its bytes were encoded from, not parsed back.
      commands = submitted != null ? List.of(submitted.command())
          : LogEntry.parseFrom(entry.getStateMachineLogEntry().getLogData().asReadOnlyByteBuffer()).getCommandsList();
      prepared = machine.prepare(index, termIndex.getTerm(), commands);
    } catch (InvalidProtocolBufferException | IllegalArgumentException e) {
      // Deterministic: every replica rejects this entry the same way, so skipping it keeps them equal.
      updateLastAppliedTermIndex(termIndex);
      return CompletableFuture.failedFuture(new IllegalArgumentException("log entry " + index + " of term "
          + termIndex.getTerm() + " was rejected: " + e.getMessage(), e));
    } catch (RuntimeException e) {
      throw fatal("applying log entry " + index, e);
    }
    try {
      store.commit(prepared.batch(), false);
    } catch (RuntimeException e) {
      machine.abandoned(prepared);
      throw fatal("writing log entry " + index, e);
    }
    List<CommandResult> results = prepared.results();
    machine.committed(prepared);
    appliedIndex = index;
    storeTermIndex = termIndex;
    updateLastAppliedTermIndex(termIndex);
    applyNanos.accept(System.nanoTime() - start);
    for (CommandResult result : results) {
      announce(index, result);
    }
    // After the announcements, as in LocalEventLog: whoever waits for this index finds them ahead of
    // its own messages in the topics' mailboxes.
    waiters.advance(index);
    // This node's own submission gets the results as they are. A client's command (a replica's barrier) gets them
    // encoded, on every replica: Ratis keeps each replica's reply for a client that sends its request again to the
    // next leader. A write leader's entry is only ever submitted in-process, so no client waits for its results.
    if (submitted != null) {
      LeaderSubmit.applied(submitted, results);
      return CompletableFuture.completedFuture(Message.EMPTY);
    }
    if (commands.size() == 1 && commands.get(0).hasLeaderEntry()) {
      return CompletableFuture.completedFuture(Message.EMPTY);
    }
    return CompletableFuture.completedFuture(LeaderSubmit.encoded(results));
  }

  /**
   * This replica cannot go on (its store refuses writes, or it disagrees with the log): the caller
   * rethrows, so Ratis stops this server rather than let the replica diverge, and the node is told,
   * so it stops hosting topics that would never hear of new messages again.
   */
  private <E extends Exception> E fatal(String what, E cause) {
    LOG.error("this replica{} failed {}: {}", shard == 0 ? "" : " of log shard " + shard, what, cause.getMessage(),
        cause);
    try {
      onFatal.accept(cause);
    } catch (RuntimeException e) {
      cause.addSuppressed(e);
    }
    return cause;
  }

  /** As in {@code LocalEventLog}: the entry is applied whatever the listener does; its failure must not stop Raft. */
  private void announce(long index, CommandResult result) {
    try {
      listener.applied(index, result);
    } catch (RuntimeException e) {
      LOG.error("announcing applied log entry {} failed; its topic learns of it on its next read", index, e);
    }
  }

  /**
   * Checkpoints the store, named by the term and index of the last entry it holds. Ratis may then
   * drop the log up to that index; a snapshot never claims more than its checkpoint holds.
   */
  @Override
  public synchronized long takeSnapshot() throws IOException {
    TermIndex last = storeTermIndex;
    if (last == null || last.getIndex() <= 0) {
      return RaftLog.INVALID_LOG_INDEX;
    }
    CheckpointStorage.Checkpoint current = storage.latest();
    if (current != null && current.index() >= last.getIndex()) {
      return current.index();
    }
    try {
      store.checkpoint(storage.pathFor(last));
    } catch (StorageException e) {
      throw new IOException("snapshot at " + last + " failed: " + e.getMessage(), e);
    }
    storage.taken(last);
    return last.getIndex();
  }
}
