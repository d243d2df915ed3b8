package io.futureq.log;

import io.futureq.log.proto.LogCommand;
import io.futureq.storage.OrderedStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The standalone {@link EventLog}: one committer thread drains every append queued while the last
 * commit ran and writes them as one RocksDB batch, fsynced when {@code fsync} is on (group commit).
 * Log indexes count group commits; the state machine stores the index with the data.
 */
public final class LocalEventLog implements EventLog {
  private static final Logger LOG = LoggerFactory.getLogger(LocalEventLog.class);
  private record Pending(LogCommand command, CompletableFuture<CommandResult> result, int bytes) {}

  private static final Pending STOP = new Pending(null, null, 0);

  private final OrderedStore store;
  private final BrokerStateMachine stateMachine;
  private final AppliedListener listener;
  private final LongConsumer commitNanos;
  private final boolean fsync;
  private final int maxCommands;
  private final WriteQueueLimit limit;
  private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
  private final Thread committer;
  private volatile boolean closed;
  private volatile long appliedIndex;
  private final AppliedWaiters waiters;

  /**
   * @param maxCommands most commands written in one group commit
   * @param limit what may wait for a commit; appends beyond fail with {@link LogOverloadedException}
   */
  public LocalEventLog(OrderedStore store, BrokerStateMachine stateMachine, boolean fsync, int maxCommands,
      WriteQueueLimit limit, AppliedListener listener, LongConsumer commitNanos) {
    this.store = store;
    this.stateMachine = stateMachine;
    this.listener = listener;
    this.commitNanos = commitNanos;
    this.fsync = fsync;
    this.maxCommands = maxCommands;
    this.limit = limit;
    this.appliedIndex = stateMachine.appliedIndex();
    this.waiters = new AppliedWaiters(appliedIndex);
    this.committer = new Thread(this::run, "futureq-group-commit");
    committer.setDaemon(true);
    committer.start();
  }

  @Override
  public CompletionStage<CommandResult> append(LogCommand command) {
    CompletableFuture<CommandResult> result = new CompletableFuture<>();
    if (closed) {
      result.completeExceptionally(new LogClosedException());
      return result;
    }
    int bytes = command.getSerializedSize();
    try {
      limit.reserve(bytes);
    } catch (LogOverloadedException e) {
      result.completeExceptionally(e);
      return result;
    }
    queue.add(new Pending(command, result, bytes));
    return result;
  }

  @Override
  public long appliedIndex() {
    return appliedIndex;
  }

  @Override
  public CompletionStage<Long> whenApplied(long index) {
    return waiters.await(index);
  }

  /** The one writer of a standalone log finds everything in the store already: no barrier to wait for. */
  @Override
  public CompletableFuture<Long> readyToLead(Duration within) {
    return CompletableFuture.completedFuture(appliedIndex);
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    queue.add(STOP);
    try {
      committer.join(TimeUnit.SECONDS.toMillis(30));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void run() {
    List<Pending> group = new ArrayList<>();
    boolean stopping = false;
    while (!stopping) {
      try {
        group.add(queue.take());
      } catch (InterruptedException e) {
        return;
      }
      queue.drainTo(group, maxCommands - 1);
      stopping = group.remove(STOP);
      if (stopping) {
        queue.drainTo(group);
        group.remove(STOP);
      }
      if (!group.isEmpty()) {
        try {
          commit(group);
        } finally {
          group.forEach(p -> limit.release(p.bytes()));
        }
      }
      group.clear();
    }
  }

  private void commit(List<Pending> group) {
    long start = System.nanoTime();
    List<LogCommand> commands = new ArrayList<>(group.size());
    group.forEach(p -> commands.add(p.command()));
    long index = appliedIndex + 1;
    BrokerStateMachine.Prepared prepared;
    try {
      prepared = stateMachine.prepare(index, commands);
    } catch (RuntimeException e) {
      group.forEach(p -> p.result().completeExceptionally(e));
      return;
    }
    try {
      store.commit(prepared.batch(), fsync);
    } catch (RuntimeException e) {
      stateMachine.abandoned(prepared);
      group.forEach(p -> p.result().completeExceptionally(e));
      return;
    }
    List<CommandResult> results = prepared.results();
    stateMachine.committed(prepared);
    appliedIndex = index;
    commitNanos.accept(System.nanoTime() - start);
    for (int i = 0; i < group.size(); i++) {
      announce(index, results.get(i));
      group.get(i).result().complete(results.get(i));
    }
    // After the announcements: whoever waits for this index then finds them ahead of its own
    // messages in the topics' mailboxes (a cancel's answer relies on it).
    waiters.advance(index);
  }

  /**
   * The entry is durable whatever the listener does; a listener failure must not stop the log
   * (every later append would hang), so it is reported and the next result is announced.
   */
  private void announce(long index, CommandResult result) {
    try {
      listener.applied(index, result);
    } catch (RuntimeException e) {
      LOG.error("announcing applied log entry {} failed; its topic learns of it on its next read", index, e);
    }
  }
}
