package io.futureq.log.raft;

import io.futureq.log.CommandResult;
import io.futureq.log.CommandResultCodec;
import io.futureq.log.EventLog.LeaderAck;
import io.futureq.log.Failures;
import io.futureq.log.LogRejectedException;
import io.futureq.log.LogUnavailableException;
import io.futureq.log.proto.ApplyResults;
import io.futureq.log.proto.LogCommand;
import io.futureq.log.proto.LogEntry;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.protocol.exceptions.StateMachineException;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * Appends a command as one Raft entry through this node's own Raft server, in-process, while its replica leads: no
 * client, no loopback connection. The state machine finds the submission again by its call id when Ratis starts the
 * transaction ({@link #claim}), keeps it with the entry, and completes it with the results of its own apply, in
 * memory: the reply Ratis sends carries nothing.
 *
 * <p>A failed stage carries {@link LogUnavailableException}: this replica does not lead (or not yet), or it stopped
 * leading before the entry committed, or no answer came within the timeout. Only in the first case was the entry
 * surely not appended; otherwise it may still be committed by the next leader.
 */
final class LeaderSubmit {
  /**
   * A submitted entry's one command, which this node applies as it is rather than parse it back from the entry's
   * bytes, and what it waits for: its result, and (when set) the moment the leader's log has it on disk.
   */
  record Submitted(LogCommand command, CompletableFuture<CommandResult> result,
      CompletableFuture<LeaderAck> onLeaderDisk) {}

  private final RaftPeerId self;
  private final RaftGroupId groupId;
  private final Duration timeout;
  private final ClientId clientId = ClientId.randomId();
  private final AtomicLong callIds = new AtomicLong();
  /** Submissions Ratis has not started a transaction for yet, by call id. */
  private final ConcurrentHashMap<Long, Submitted> unclaimed = new ConcurrentHashMap<>();

  private volatile RaftServer server;

  LeaderSubmit(RaftPeerId self, RaftGroupId groupId, Duration timeout) {
    this.self = self;
    this.groupId = groupId;
    this.timeout = timeout;
  }

  /** The server to submit to: created after its state machine, which needs this to {@link #claim} submissions. */
  void attach(RaftServer server) {
    this.server = server;
  }

  CompletionStage<CommandResult> submit(LogCommand command, CompletableFuture<LeaderAck> onLeaderDisk) {
    long callId = callIds.incrementAndGet();
    Submitted submitted = new Submitted(command, new CompletableFuture<>(), onLeaderDisk);
    unclaimed.put(callId, submitted);
    byte[] entry = LogEntry.newBuilder().addCommands(command).build().toByteArray();
    RaftClientRequest request = RaftClientRequest.newBuilder().setClientId(clientId).setServerId(self)
        .setGroupId(groupId).setCallId(callId)
        .setMessage(Message.valueOf(UnsafeByteOperations.unsafeWrap(entry)))
        .setType(RaftClientRequest.writeRequestType()).build();
    CompletableFuture<RaftClientReply> reply;
    try {
      reply = server.submitClientRequestAsync(request);
    } catch (IOException | RuntimeException e) {
      reply = CompletableFuture.failedFuture(e);
    }
    reply.whenComplete((r, failure) -> {
      unclaimed.remove(callId);
      answer(submitted.result(), r, failure);
    });
    return submitted.result().orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
        .exceptionallyCompose(e -> CompletableFuture.failedFuture(e instanceof TimeoutException
            ? new LogUnavailableException("the Raft leader on this node did not commit the entry within "
                + timeout.toMillis() + "ms; it may still be applied", e) : e));
  }

  /** Called by the state machine as Ratis starts a transaction: the submission it carries, if it is one of ours. */
  Submitted claim(RaftClientRequest request) {
    return clientId.equals(request.getClientId()) ? unclaimed.remove(request.getCallId()) : null;
  }

  /**
   * Normally the apply completed the result before Ratis replied. A failed reply fails it; a reply whose entry this
   * replica applied without the submission (applied before a restart) is read from the reply's encoded results.
   */
  private static void answer(CompletableFuture<CommandResult> result, RaftClientReply reply, Throwable failure) {
    if (result.isDone()) {
      return;
    }
    if (failure == null && reply != null && !reply.isSuccess()) {
      failure = reply.getException();
    }
    if (failure != null) {
      result.completeExceptionally(translate(failure));
      return;
    }
    Replies.complete(List.of(result), reply, null, Duration.ZERO, false);
  }

  /** Whether a submission failed because this replica did not lead (or was not ready): its entry was not appended. */
  static boolean notAppended(Throwable failure) {
    Throwable cause = failure.getCause();
    return failure instanceof LogUnavailableException
        && (cause instanceof NotLeaderException || cause instanceof LeaderNotReadyException);
  }

  private static RuntimeException translate(Throwable failure) {
    Throwable cause = Failures.cause(failure);
    if (cause instanceof StateMachineException) {
      return new LogRejectedException("the replicas rejected a Raft entry: " + cause.getMessage(), cause);
    }
    if (cause instanceof NotLeaderException || cause instanceof LeaderNotReadyException) {
      return new LogUnavailableException("this node's Raft replica does not lead now (" + cause.getMessage()
          + "); the entry may still be applied if it was appended before", cause);
    }
    return new LogUnavailableException("the Raft leader on this node did not commit the entry ("
        + cause.getClass().getSimpleName() + ": " + cause.getMessage() + "); it may still be applied", cause);
  }

  /** The results this apply hands to a submission: the entry holds its one command. */
  static void applied(Submitted submitted, List<CommandResult> results) {
    submitted.result().complete(results.get(0));
  }

  /** The encoded results a reply carries when no submission of this node waits for them. */
  static Message encoded(List<CommandResult> results) {
    ApplyResults encoded = CommandResultCodec.encode(results);
    return Message.valueOf(UnsafeByteOperations.unsafeWrap(encoded.toByteArray()));
  }
}
