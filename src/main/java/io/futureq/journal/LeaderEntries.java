package io.futureq.journal;

import io.futureq.log.CommandResult;
import io.futureq.log.EventLog;
import io.futureq.log.LogClosedException;
import io.futureq.log.LogOverloadedException;
import io.futureq.log.LogRejectedException;
import io.futureq.storage.StorageException;
import io.futureq.log.leader.LogLeader;
import io.futureq.log.proto.LeaderEntry;
import io.futureq.log.proto.LogCommand;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.persistence.AtomicWrite;
import org.apache.pekko.persistence.PersistentRepr;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The journal's special case for {@link LogLeader}: its event is a log entry, so it is appended to the log as one
 * {@code LeaderEntry} under the event's leader sequence number and stored nowhere else. The state machine keeps the
 * highest applied sequence number as replicated state; that is all a leader's recovery reads.
 */
final class LeaderEntries {
  private LeaderEntries() {}

  static boolean isLeader(String persistenceId) {
    return LogLeader.PERSISTENCE_ID.equals(persistenceId);
  }

  /**
   * Appends the leader's write as one log entry. Completes with no exception once it is applied; with a
   * {@link LeaderFencedException} if the state machine fenced it; with the log's failure otherwise. The event's
   * outcome is completed first, so the leader's callers learn the results.
   */
  static CompletionStage<Optional<Exception>> write(EventLog log, AtomicWrite atomic) {
    var reprs = CollectionConverters.asJava(atomic.payload());
    if (reprs.size() != 1 || !(reprs.get(0).payload() instanceof LogLeader.EntryPersisted)) {
      return CompletableFuture.completedFuture(Optional.of(new IllegalArgumentException(
          "the write leader persists one EntryPersisted per write, not " + reprs.size() + " events")));
    }
    PersistentRepr repr = reprs.get(0);
    LogLeader.EntryPersisted event = (LogLeader.EntryPersisted) repr.payload();
    LogCommand command = LogCommand.newBuilder().setLeaderEntry(LeaderEntry.newBuilder()
        .setSequenceNr(event.leaderSequenceNr()).addAllCommands(event.commands().getCommandsList())).build();
    CompletionStage<CommandResult> appended;
    try {
      appended = log.append(command);
    } catch (RuntimeException e) {
      appended = CompletableFuture.failedFuture(e);
    }
    return appended.handle((result, failure) -> {
      if (failure != null) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause() : failure;
        event.outcome().completeExceptionally(cause);
        if (refusedOutright(cause)) {
          return Optional.empty(); // the leader counts it as refused and goes on with the same sequence number
        }
        return Optional.of(cause instanceof Exception e ? e : new IllegalStateException(cause));
      }
      CommandResult.LeaderEntryApplied applied = (CommandResult.LeaderEntryApplied) result;
      event.outcome().complete(applied);
      return applied.fenced() ? Optional.of(new LeaderFencedException(applied)) : Optional.empty();
    });
  }

  /**
   * Failures after which the entry is certainly not applied and never will be: a standalone commit that failed, a
   * command every replica rejects, a full queue, a closed log. After the others (no quorum, a timeout) it may still
   * commit, so the leader restarts and reads the sequence number again rather than guess.
   */
  private static boolean refusedOutright(Throwable cause) {
    return cause instanceof StorageException || cause instanceof LogRejectedException
        || cause instanceof IllegalArgumentException || cause instanceof LogOverloadedException
        || cause instanceof LogClosedException;
  }

  /** A stale leader's entry: the state machine applied another with a later sequence number first. */
  static final class LeaderFencedException extends IllegalStateException {
    LeaderFencedException(CommandResult.LeaderEntryApplied applied) {
      super("the write leader's entry " + applied.sequenceNr() + " was fenced: the log applied leader entry "
          + applied.appliedSequenceNr() + " already, written by a newer leader");
    }
  }
}
