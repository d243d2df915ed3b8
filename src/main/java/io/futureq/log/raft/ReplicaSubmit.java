package io.futureq.log.raft;

import io.futureq.log.CommandResult;
import io.futureq.log.LogClosedException;
import io.futureq.log.LogOverloadedException;
import io.futureq.log.WriteQueueLimit;
import io.futureq.log.proto.LogCommand;
import io.futureq.log.proto.LogEntry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * Appends a replica's own commands, one entry each, wherever the Raft leader is: a barrier now and then (after a
 * lapse, after its start, before a write leader recovers), never the write path's traffic, which the write leader
 * submits itself ({@link LeaderSubmit}). So one thread sends one command at a time, with no group commit and no
 * pipeline: while this replica leads and is ready, in-process to its own server ({@link LeaderSubmit}); otherwise
 * through a blocking Raft client, which follows redirects and retries until the request timeout (a new leader is
 * not ready until its first entry is applied, and refuses until then).
 *
 * <p>A client learns of a new leader only from a request that fails, and one aimed at a dead leader waits out a
 * retry pause first: before each send, a client aimed at another peer than the leader this replica follows is
 * replaced by one aimed at that leader.
 *
 * <p>Back-pressure: what waits is bounded by a {@link WriteQueueLimit}; beyond it appends fail at once. An append
 * whose caller was already answered (it waited past twice the request timeout, as without a quorum) is dropped
 * instead of sent, so a write reported failed is not applied minutes later when a leader is back.
 */
final class ReplicaSubmit {
  private record Pending(LogCommand command, CompletableFuture<CommandResult> result, int bytes,
      AtomicBoolean counted) {}

  private static final Pending STOP = new Pending(null, null, 0, new AtomicBoolean());

  /** A client of the group aimed first at the given leader (or at none known: null). */
  private final Function<RaftPeerId, RaftClient> newClient;
  /** The leader this node's replica follows, null while it knows none. */
  private final Supplier<RaftPeerId> knownLeader;
  /** This replica's id, and whether it leads and is ready for entries. */
  private final RaftPeerId self;
  private final BooleanSupplier leaderReady;
  private final LeaderSubmit inProcess;
  private final WriteQueueLimit limit;
  private final Duration timeout;
  private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
  /** How many commands were first sent to each peer (tests). */
  private final Map<RaftPeerId, Long> sentTo = new ConcurrentHashMap<>();
  private final Thread thread;
  private volatile boolean closed;
  /** Confined to the sending thread, then to {@link #close}. */
  private RaftClient client;

  ReplicaSubmit(Function<RaftPeerId, RaftClient> newClient, ReplicaView replica, LeaderSubmit inProcess,
      Duration timeout, WriteQueueLimit limit) {
    this.newClient = newClient;
    this.knownLeader = replica::leader;
    this.self = RaftPeerId.valueOf(replica.nodeId());
    this.leaderReady = replica::leaderReady;
    this.inProcess = inProcess;
    this.timeout = timeout;
    this.limit = limit;
    this.client = newClient.apply(null);
    this.thread = new Thread(this::run, "futureq-raft-submit");
    thread.setDaemon(true);
    thread.start();
  }

  /** Queues {@code command} (checked by the caller: not empty, within the entry size) of {@code bytes}. */
  CompletionStage<CommandResult> submit(LogCommand command, int bytes) {
    CompletableFuture<CommandResult> result = new CompletableFuture<>();
    if (closed) {
      result.completeExceptionally(new LogClosedException());
      return result;
    }
    try {
      limit.reserve(bytes);
    } catch (LogOverloadedException e) {
      result.completeExceptionally(e);
      return result;
    }
    Pending pending = new Pending(command, result, bytes, new AtomicBoolean(true));
    // Answered before it was sent (timed out, or its caller gave up): it counts no more.
    result.whenComplete((r, failure) -> uncount(pending));
    // A backstop: the client gives up at the timeout, but a reply lost in a dying server must not hang callers.
    result.orTimeout(timeout.multipliedBy(2).toMillis(), TimeUnit.MILLISECONDS);
    queue.add(pending);
    return result;
  }

  /** How many commands were first sent to {@code peer} (to this replica itself: in-process). */
  long sentTo(RaftPeerId peer) {
    return sentTo.getOrDefault(peer, 0L);
  }

  /** Sends what was queued before (within twice the timeout), then closes the client. */
  void close() {
    if (closed) {
      return;
    }
    closed = true;
    queue.add(STOP);
    try {
      thread.join(timeout.multipliedBy(2).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    thread.interrupt();
    for (Pending late; (late = queue.poll()) != null; ) {
      if (late != STOP) {
        late.result().completeExceptionally(new LogClosedException());
      }
    }
    closeClient(client);
  }

  private void run() {
    while (true) {
      Pending next;
      try {
        next = queue.take();
      } catch (InterruptedException e) {
        return;
      }
      if (next == STOP) {
        return;
      }
      uncount(next);
      if (!next.result().isDone()) {
        send(next);
      }
    }
  }

  private void send(Pending pending) {
    if (leaderReady.getAsBoolean()) {
      sentTo.merge(self, 1L, Long::sum);
      try {
        pending.result().complete(inProcess.submit(pending.command(), null).toCompletableFuture().get());
        return;
      } catch (ExecutionException e) {
        if (!LeaderSubmit.notAppended(e.getCause())) {
          pending.result().completeExceptionally(e.getCause());
          return;
        }
        // It stopped leading just now, and the entry was not appended: the client finds the next leader.
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        pending.result().completeExceptionally(new LogClosedException());
        return;
      }
    }
    try {
      aimAtKnownLeader();
      sentTo.merge(client.getLeaderId(), 1L, Long::sum);
      byte[] entry = LogEntry.newBuilder().addCommands(pending.command()).build().toByteArray();
      RaftClientReply reply = client.io().send(Message.valueOf(UnsafeByteOperations.unsafeWrap(entry)));
      Replies.complete(List.of(pending.result()), reply, null, timeout, closed);
    } catch (IOException | RuntimeException e) {
      Replies.complete(List.of(pending.result()), null, e, timeout, closed);
    }
  }

  /** The append leaves the queue's count once: when taken to be sent, or when answered before that. */
  private void uncount(Pending pending) {
    if (pending.counted().compareAndSet(true, false)) {
      limit.release(pending.bytes());
    }
  }

  private void aimAtKnownLeader() {
    RaftPeerId leader = knownLeader.get();
    if (leader != null && !leader.equals(client.getLeaderId())) {
      closeClient(client);
      client = newClient.apply(leader);
    }
  }

  private static void closeClient(RaftClient client) {
    try {
      client.close();
    } catch (IOException e) {
      throw new UncheckedIOException("closing the Raft client failed", e);
    }
  }
}
