package io.futureq.journal;

import io.futureq.log.CommandResult;
import io.futureq.log.EventLog;
import io.futureq.log.Failures;
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
   * Appends the leader's write as one log command and confirms the write at once, before it is applied: the log
   * keeps the order of appends (one committer queue, and Raft's ordered client), so the leader may persist its next
   * entry while this one is on its way; that is what pipelines the leader's entries. The event's outcome completes
   * later with what the state machine did (applied, already applied, out of order or fenced) or with the log's
   * failure. The write itself never fails: a fenced or refused entry is the leader's business (it answers its
   * writer and renumbers), not a reason to stop the actor.
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
        .setSequenceNr(event.leaderSequenceNr()).setWriter(event.writer())
        .setFirstWriteId(event.firstWriteId()).setWriteId(event.writeId())
        .addAllCommands(event.commands().getCommandsList())).build();
    CompletionStage<CommandResult> appended;
    try {
      appended = log.append(command);
    } catch (RuntimeException e) {
      appended = CompletableFuture.failedFuture(e);
    }
    appended.whenComplete((result, failure) -> {
      if (failure != null) {
        event.outcome().completeExceptionally(Failures.cause(failure));
      } else {
        event.outcome().complete((CommandResult.LeaderEntryApplied) result);
      }
    });
    return CompletableFuture.completedFuture(Optional.empty());
  }
}
