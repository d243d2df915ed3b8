package io.futureq.journal;

import io.futureq.log.CommandResult;
import io.futureq.log.EventLog;
import io.futureq.log.Failures;
import io.futureq.log.LogUnavailableException;
import io.futureq.log.leader.LeaderWrites;
import io.futureq.log.leader.LogLeader;
import io.futureq.log.proto.LeaderEntry;
import io.futureq.log.proto.LogCommand;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.persistence.AtomicWrite;
import org.apache.pekko.persistence.PersistentRepr;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The journal's special case for {@link LogLeader}: its events are log commands, so one AtomicWrite is appended to
 * the log as one {@code LeaderEntry} (one Raft entry, or one fsynced batch standalone) and stored nowhere else. The
 * write is confirmed once the entry is durable and applied here; what applying it did goes to the leader through
 * {@link LeaderWrites}, in memory.
 */
final class LeaderEntries {
  private LeaderEntries() {}

  static boolean isLeader(String persistenceId) {
    return LogLeader.termOf(persistenceId) > 0;
  }

  /**
   * Appends the leader's events as one entry of its term. The write fails when the log failed the entry (the
   * leader then stops: the outcome went to its writers through {@link LeaderWrites}) or when the state machine
   * fenced it (its leader writes in a term that is over: nothing of it was applied).
   */
  static CompletionStage<Optional<Exception>> write(EventLog log, LeaderWrites writes, AtomicWrite atomic) {
    String persistenceId = atomic.persistenceId();
    LeaderWrites.Pending pending = writes.take(persistenceId);
    CompletableFuture<CommandResult.LeaderEntryApplied> applied =
        pending == null ? new CompletableFuture<>() : pending.applied();
    LeaderEntry.Builder entry = LeaderEntry.newBuilder().setTerm(LogLeader.termOf(persistenceId));
    for (PersistentRepr repr : CollectionConverters.asJava(atomic.payload())) {
      if (!(repr.payload() instanceof LogCommand command)) {
        return CompletableFuture.completedFuture(Optional.of(new IllegalArgumentException(
            "the write leader persists log commands, not " + repr.payload().getClass().getName())));
      }
      entry.addCommands(command);
    }
    CompletionStage<CommandResult> appended;
    try {
      appended = log.append(LogCommand.newBuilder().setLeaderEntry(entry).build(),
          pending == null ? null : pending.onLeaderDisk());
    } catch (RuntimeException e) {
      appended = CompletableFuture.failedFuture(e);
    }
    return appended.handle((result, failure) -> {
      if (failure != null) {
        applied.completeExceptionally(Failures.cause(failure));
        throw new LogUnavailableException("the write leader's entry failed: " + failure.getMessage(),
            Failures.cause(failure));
      }
      CommandResult.LeaderEntryApplied entryApplied = (CommandResult.LeaderEntryApplied) result;
      applied.complete(entryApplied);
      if (entryApplied.fenced()) {
        throw new LogUnavailableException("the write leader of " + persistenceId + " was fenced: its Raft term is "
            + "over, nothing of its entry was applied", null);
      }
      return Optional.empty();
    });
  }
}
