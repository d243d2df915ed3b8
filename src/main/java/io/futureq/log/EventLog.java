package io.futureq.log;

import io.futureq.log.proto.LogCommand;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * The only way to change durable state: commands are appended, committed and then applied by
 * {@link BrokerStateMachine} in log order.
 *
 * <p>Contract: {@link #append} may be called from any thread. Commands are applied in the order
 * their appends were accepted. The returned stage completes after the command is committed (durable
 * per the implementation's guarantee) and applied, with the command's result; a failed stage means
 * the command was not applied and none of its effects are visible. Concurrent appends may be
 * committed together (group commit). Every applied result is also passed, in order, to the
 * {@link AppliedListener} given at construction.
 */
public interface EventLog extends AutoCloseable {

  /** Appends one command; see the class contract. */
  CompletionStage<CommandResult> append(LogCommand command);

  /**
   * As {@link #append(LogCommand)}; besides, {@code onLeaderDisk} completes with where the command sits in the log
   * once the leader's own log has it on disk, which in a cluster is before a majority has it (standalone, and
   * wherever the leader cannot tell, it never completes and the append's own result comes first). For
   * {@code ACK_LEVEL_LEADER}: such a command is lost if the leader loses its leadership before a majority has it.
   */
  default CompletionStage<CommandResult> append(LogCommand command, CompletableFuture<LeaderAck> onLeaderDisk) {
    return append(command);
  }

  /**
   * Where a command is in the leader's log: entry {@code logIndex}, its new messages from slot {@code firstSlot}
   * on, which gives their event ids ({@link EventIds}).
   */
  record LeaderAck(long logIndex, int firstSlot) {}

  /** The index of the last applied log entry (0 before the first). */
  long appliedIndex();

  /**
   * Completes once this replica has applied log entry {@code index} and told the {@link AppliedListener}
   * of it (at once if it has), with its applied index then: a topic told of the entry has it in its
   * mailbox before anything the waiter sends it. Appends complete when the entry is applied where it was decided,
   * which in a cluster may be another replica: a reader of the local store waits here first. Completes on the
   * log's thread: callers hand the work on. Never completes if this replica stops applying.
   */
  CompletionStage<Long> whenApplied(long index);

  /**
   * As {@link #whenApplied(long)}, failing with an {@link IllegalStateException} that says where this
   * replica is if it has not applied {@code index} within {@code within}.
   */
  default CompletableFuture<Long> whenApplied(long index, Duration within) {
    return whenApplied(index).toCompletableFuture().orTimeout(within.toMillis(), TimeUnit.MILLISECONDS)
        .exceptionallyCompose(timeout -> CompletableFuture.failedFuture(new IllegalStateException(
            "this replica did not apply log index " + index + " within " + within + " (it is at " + appliedIndex()
            + ")")));
  }

  /**
   * Completes, with this replica's applied index, once its store holds every append answered before the call, as far
   * as a leader can tell without asking the others: for the write leader's recovery, which reads its sequence number
   * there and whose entries are fenced should it have read stale (a deposed leader that does not know it yet). Fails
   * if that takes longer than {@code within}, and a replicated log fails it at once where its replica does not lead.
   * By default it appends a {@link Barrier} and waits until this replica has applied it.
   */
  default CompletableFuture<Long> readyToLead(Duration within) {
    return Barrier.applied(this, this, within);
  }

  /**
   * Whether this replica's store may be delivered from now. A clustered replica that lost contact with
   * the rest of the group (paused, cut off) may be missing committed cancels and acks; until it has
   * caught up again its topics hold their deliveries. Always true for a log without replicas.
   */
  default boolean current() {
    return true;
  }

  /**
   * How many times this replica has become {@linkplain #current() current} again after losing touch
   * with the group; it changes before {@link #current()} turns true. A reader that sees it change
   * knows the replica caught up meanwhile, and that announcements of what it applied then may still
   * be on their way to the topics. Always 0 for a log without replicas.
   */
  default long recoveries() {
    return 0;
  }

  /** Commits everything accepted so far, then stops; later appends fail. */
  @Override
  void close();

  /** Told of every applied command, on the log's own thread; must not block. */
  @FunctionalInterface
  interface AppliedListener {
    void applied(long index, CommandResult result);

    /**
     * The store was replaced as a whole (a Raft snapshot install), now at {@code appliedIndex}: the
     * commands in between were never announced, and whatever was read of the store before is stale.
     */
    default void storeReplaced(long appliedIndex) {}
  }
}
