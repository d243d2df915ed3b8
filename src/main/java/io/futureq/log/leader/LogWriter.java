package io.futureq.log.leader;

import io.futureq.log.CommandResult;
import io.futureq.log.EventLog;
import io.futureq.log.EventLog.LeaderAck;
import io.futureq.log.LogClosedException;
import io.futureq.log.LogOverloadedException;
import io.futureq.log.WriteQueueLimit;
import io.futureq.log.proto.LogCommand;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * The {@link EventLog} every writer on a node is given (gRPC API, topic entities, groups, administration, the
 * journal's other users): appends go to the one {@link LogLeader}, wherever it runs, and come back with the state
 * machine's results: straight to it when it runs on this node ({@link LeaderLane}), else through this node's
 * {@link WriteRouter}. Reads of the applied index are this node's replica's.
 *
 * <p>Contract, beyond {@link EventLog}'s: a command is refused at once if it can never be written (no body,
 * larger than one entry may be) or if more waits than {@link WriteQueueLimit} allows; an append not answered within
 * twice the timeout fails with a {@link java.util.concurrent.TimeoutException}, and its outcome is then unknown.
 * Closing it refuses later appends and leaves the log itself open: its owner closes that.
 */
public final class LogWriter implements EventLog {
  /** This node's replica: another when the node takes up or gives up the shard's replica ({@link #replica}). */
  private volatile EventLog log;
  private final ActorRef<WriteRouter.Command> router;
  private final LeaderLane lane;
  private final WriteQueueLimit limit;
  private final long maxCommandBytes;
  private final Duration timeout;
  private volatile boolean closed;

  /**
   * @param log this node's replica of the log, for reads and waits
   * @param lane the way to a leader on this node, which {@code router} opens and closes
   * @param maxCommandBytes largest command one entry can carry
   * @param timeout how long a write may take; appends fail after twice that
   */
  public LogWriter(EventLog log, ActorRef<WriteRouter.Command> router, LeaderLane lane, WriteQueueLimit limit,
      long maxCommandBytes, Duration timeout) {
    this.log = log;
    this.router = router;
    this.lane = lane;
    this.limit = limit;
    this.maxCommandBytes = maxCommandBytes;
    this.timeout = timeout;
  }

  /** Reads and waits go to {@code replica} from now on: the node took up or gave up its replica of the shard. */
  public void replica(EventLog replica) {
    this.log = replica;
  }

  @Override
  public CompletionStage<CommandResult> append(LogCommand command) {
    return append(command, null);
  }

  /** Clustered, {@code onLeaderDisk} completes once the Raft leader's log has the command on disk; standalone never. */
  @Override
  public CompletionStage<CommandResult> append(LogCommand command, CompletableFuture<LeaderAck> onLeaderDisk) {
    if (closed) {
      return CompletableFuture.failedFuture(new LogClosedException());
    }
    if (command.getCommandCase() == LogCommand.CommandCase.COMMAND_NOT_SET
        || command.getCommandCase() == LogCommand.CommandCase.LEADER_ENTRY) {
      return CompletableFuture.failedFuture(new IllegalArgumentException("not a command a writer appends: " + command));
    }
    int bytes = command.getSerializedSize();
    if (bytes > maxCommandBytes) {
      return CompletableFuture.failedFuture(new IllegalArgumentException("a log command of " + bytes
          + " bytes exceeds futureq.raft.max-entry-size (" + maxCommandBytes + " bytes)"));
    }
    try {
      limit.reserve(bytes);
    } catch (LogOverloadedException e) {
      return CompletableFuture.failedFuture(e);
    }
    CompletableFuture<CommandResult> result = new CompletableFuture<>();
    result.whenComplete((r, failure) -> limit.release(bytes));
    // A backstop: the log fails an entry after the timeout, but an append must never wait for ever.
    result.orTimeout(timeout.multipliedBy(2).toMillis(), TimeUnit.MILLISECONDS);
    LogLeader.Append append = new LogLeader.Append(command, bytes, result, onLeaderDisk);
    if (!lane.offer(append)) {
      router.tell(append);
    }
    return result;
  }

  @Override
  public long appliedIndex() {
    return log.appliedIndex();
  }

  @Override
  public CompletionStage<Long> whenApplied(long index) {
    return log.whenApplied(index);
  }

  /** Whether this node's replica may serve reads now: the replica's answer, not the leader's. */
  @Override
  public boolean current() {
    return log.current();
  }

  @Override
  public long recoveries() {
    return log.recoveries();
  }

  @Override
  public void close() {
    closed = true;
  }
}
