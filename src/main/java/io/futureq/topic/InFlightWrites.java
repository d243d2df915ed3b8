package io.futureq.topic;

import io.futureq.log.CommandResult;
import io.futureq.log.EventLog;
import io.futureq.log.proto.LogCommand;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The log as one topic entity and its groups write to it, keeping the writes the log has not answered yet, so that
 * the entity can wait for them before it hands its topic over: the topic's next host appends its groups'
 * registrations after them, and so reads what they did. Without the wait a nack delay written just before a move
 * (the shard coordinator rebalancing topics after a node returned) reached the log after the new host's groups had
 * read the message without its mark, and they delivered it again at once (ClusterCrashLoopTest, seed 44688653752218).
 */
final class InFlightWrites implements EventLog {
  private final EventLog log;
  private final Set<CompletableFuture<CommandResult>> inFlight = ConcurrentHashMap.newKeySet();

  InFlightWrites(EventLog log) {
    this.log = log;
  }

  /** Completes once every write appended before the call has been answered, whatever the answer. */
  CompletableFuture<Void> settled() {
    return CompletableFuture.allOf(inFlight.stream().map(w -> w.handle((r, e) -> null))
        .toArray(CompletableFuture[]::new));
  }

  @Override
  public CompletionStage<CommandResult> append(LogCommand command) {
    return tracked(log.append(command));
  }

  @Override
  public CompletionStage<CommandResult> append(LogCommand command, CompletableFuture<LeaderAck> onLeaderDisk) {
    return tracked(log.append(command, onLeaderDisk));
  }

  private CompletionStage<CommandResult> tracked(CompletionStage<CommandResult> appended) {
    CompletableFuture<CommandResult> write = appended.toCompletableFuture();
    inFlight.add(write);
    write.whenComplete((r, e) -> inFlight.remove(write));
    return write;
  }

  @Override
  public long appliedIndex() {
    return log.appliedIndex();
  }

  @Override
  public CompletionStage<Long> whenApplied(long index) {
    return log.whenApplied(index);
  }

  @Override
  public CompletableFuture<Long> whenApplied(long index, Duration within) {
    return log.whenApplied(index, within);
  }

  @Override
  public CompletableFuture<Long> readyToLead(Duration within) {
    return log.readyToLead(within);
  }

  @Override
  public boolean current() {
    return log.current();
  }

  @Override
  public long recoveries() {
    return log.recoveries();
  }

  /** The log is the node's: closing the entity's view of it closes nothing. */
  @Override
  public void close() {}
}
