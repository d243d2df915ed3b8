package io.futureq.log.raft;

import com.google.protobuf.InvalidProtocolBufferException;
import io.futureq.log.CommandResult;
import io.futureq.log.CommandResultCodec;
import io.futureq.log.Failures;
import io.futureq.log.LogClosedException;
import io.futureq.log.LogRejectedException;
import io.futureq.log.LogUnavailableException;
import io.futureq.log.proto.ApplyResults;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.exceptions.AlreadyClosedException;
import org.apache.ratis.protocol.exceptions.RaftRetryFailureException;
import org.apache.ratis.protocol.exceptions.StateMachineException;

/** Turns the leader's answer to one entry into the results, or the failure, of each append in it. */
final class Replies {
  private Replies() {}

  /**
   * Completes {@code appends} (in entry order) from the reply or the failure of their entry.
   *
   * @param closing whether the log is closing, so a closed client means {@link LogClosedException}
   */
  static void complete(List<CompletableFuture<CommandResult>> appends, RaftClientReply reply, Throwable failure,
      Duration timeout, boolean closing) {
    if (failure == null && reply != null && !reply.isSuccess()) {
      failure = reply.getException();
    }
    if (failure != null) {
      RuntimeException error = translate(failure, appends.size(), timeout, closing);
      appends.forEach(a -> a.completeExceptionally(error));
      return;
    }
    ApplyResults encoded;
    try {
      encoded = ApplyResults.parseFrom(reply.getMessage().getContent().asReadOnlyByteBuffer());
    } catch (InvalidProtocolBufferException e) {
      IllegalStateException error = new IllegalStateException("the reply to Raft entry " + reply.getLogIndex()
          + " is not ApplyResults", e);
      appends.forEach(a -> a.completeExceptionally(error));
      return;
    }
    // Empty: a write leader's entry, whose results only its submission on the leader's node gets, in memory.
    if (encoded.getReplayed() || reply.getMessage().getContent().isEmpty()) {
      LogUnavailableException error = new LogUnavailableException("Raft entry " + reply.getLogIndex()
          + " was applied, but its results were not kept for this request (applied before a restart, or a write "
          + "leader's entry); retry to learn them (messages with a key are not stored twice)", null);
      appends.forEach(a -> a.completeExceptionally(error));
      return;
    }
    List<CommandResult> results = CommandResultCodec.decode(encoded);
    if (results.size() != appends.size()) {
      IllegalStateException error = new IllegalStateException("Raft entry " + reply.getLogIndex() + " had "
          + appends.size() + " commands but its reply has " + results.size() + " results");
      appends.forEach(a -> a.completeExceptionally(error));
      return;
    }
    for (int i = 0; i < appends.size(); i++) {
      appends.get(i).complete(results.get(i));
    }
  }

  /** The exception the appends of a failed entry fail with; the message says what happened. */
  static RuntimeException translate(Throwable failure, int commands, Duration timeout, boolean closing) {
    Throwable cause = Failures.cause(failure);
    if (closing && cause instanceof AlreadyClosedException) {
      return new LogClosedException();
    }
    if (cause instanceof StateMachineException) {
      return new LogRejectedException("the replicas rejected a Raft entry of " + commands + " commands: "
          + cause.getMessage(), cause);
    }
    return new LogUnavailableException("no Raft leader committed an entry of " + commands + " commands within "
        + timeout.toMillis() + "ms (" + describe(cause) + "); they may still be applied", cause);
  }

  private static String describe(Throwable cause) {
    Throwable last = cause;
    // A retry failure and a closed window wrap the error of the last attempt, which says more.
    while ((last instanceof RaftRetryFailureException || last instanceof AlreadyClosedException)
        && last.getCause() != null) {
      last = last.getCause();
    }
    return last.getClass().getSimpleName() + ": " + last.getMessage();
  }
}
