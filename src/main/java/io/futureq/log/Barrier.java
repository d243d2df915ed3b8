package io.futureq.log;

import io.futureq.log.proto.JournalWrite;
import io.futureq.log.proto.LogCommand;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Raft's read-index idea on the log: an empty journal write, appended through the leader, is ordered
 * after everything committed before it, so once a replica has applied it that replica has seen all of
 * that. Used by the journal before it reads, and by a clustered replica that lost touch before it
 * delivers again.
 */
public final class Barrier {
  /** Applied in log order, it changes nothing; its result carries its log index. */
  public static final LogCommand COMMAND = LogCommand.newBuilder().setJournalWrite(JournalWrite.getDefaultInstance())
      .build();

  private Barrier() {}

  /**
   * Appends a barrier through {@code writer} and completes with its log index once {@code replica} has
   * applied it, failing if that takes longer than {@code within}.
   */
  public static CompletableFuture<Long> applied(EventLog writer, EventLog replica, Duration within) {
    CompletableFuture<CommandResult> appended;
    try {
      appended = writer.append(COMMAND).toCompletableFuture();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    return appended.thenCompose(result -> replica.whenApplied(((CommandResult.JournalWritten) result).logIndex(),
        within));
  }
}
