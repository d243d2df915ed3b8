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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * Group commit over Raft: one thread packs every append queued since the last submission (up to
 * {@code maxCommands} and {@code maxEntryBytes}) into one {@link LogEntry}, and submits it with the
 * client's ordered async API, so entries commit in submission order. Up to {@code maxOutstanding}
 * entries are in flight; while all are, appends queue up and join the next entry.
 *
 * <p>After a failed submission Ratis fails every later request of the same client, so the client is
 * replaced; the new one is used only once the old one has nothing in flight, which keeps the order.
 *
 * <p>A client learns of a new leader only from a request that fails: sent to a dead leader, it waits out a retry
 * pause, and may try a follower first. So the leader this node's replica follows (or is) replaces an
 * idle client whose leader is another one with a client aimed at the new leader (a few milliseconds): after a
 * leader's death, the new leader's node sent its first entries to the dead one first.
 *
 * <p>Back-pressure: what waits in the queue is bounded by a {@link WriteQueueLimit} (commands and
 * bytes); beyond it appends fail at once. An append whose caller was already told it failed (it
 * waited past twice the request timeout, as without a quorum) is dropped instead of submitted, so a
 * publish reported failed is not applied minutes later when a leader is back.
 */
final class EntryCommitter {
  private record Pending(LogCommand command, CompletableFuture<CommandResult> result, int bytes,
      AtomicBoolean counted) {}

  private static final Pending STOP = new Pending(null, null, 0, new AtomicBoolean());
  /** Protobuf framing of one command inside the entry: tag and length. */
  private static final int COMMAND_FRAMING = 8;

  /** A client of the group, aimed first at the given leader (or at none known: null). */
  private final Function<RaftPeerId, RaftClient> newClient;
  private final WriteQueueLimit limit;
  private final int maxCommands;
  private final long maxEntryBytes;
  private final int maxOutstanding;
  private final Duration timeout;
  private final Semaphore outstanding;
  private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
  private final Thread thread;
  private volatile boolean closed;
  private volatile boolean clientFailed;
  /** The leader this node's replica follows (or is), null while it knows none. */
  private final Supplier<RaftPeerId> knownLeader;
  /** How many entries were first sent to each peer (tests). */
  private final Map<RaftPeerId, Long> sentTo = new ConcurrentHashMap<>();
  /** Confined to the committer thread, then to {@link #close}. */
  private RaftClient client;
  private Pending carried;

  EntryCommitter(Function<RaftPeerId, RaftClient> newClient, Supplier<RaftPeerId> knownLeader, int maxCommands,
      long maxEntryBytes, int maxOutstanding, Duration timeout, WriteQueueLimit limit) {
    this.newClient = newClient;
    this.knownLeader = knownLeader;
    this.limit = limit;
    this.maxCommands = maxCommands;
    this.maxEntryBytes = maxEntryBytes;
    this.maxOutstanding = maxOutstanding;
    this.timeout = timeout;
    this.outstanding = new Semaphore(maxOutstanding);
    this.client = newClient.apply(null);
    this.thread = new Thread(this::run, "futureq-raft-commit");
    thread.setDaemon(true);
    thread.start();
  }

  CompletionStage<CommandResult> append(LogCommand command) {
    CompletableFuture<CommandResult> result = new CompletableFuture<>();
    int bytes = command.getSerializedSize() + COMMAND_FRAMING;
    if (closed) {
      result.completeExceptionally(new LogClosedException());
    } else if (command.getCommandCase() == LogCommand.CommandCase.COMMAND_NOT_SET) {
      result.completeExceptionally(new IllegalArgumentException("log command without a body: " + command));
    } else if (bytes > maxEntryBytes) {
      result.completeExceptionally(new IllegalArgumentException("a log command of " + bytes
          + " bytes exceeds futureq.raft.max-entry-size (" + maxEntryBytes + " bytes)"));
    } else {
      try {
        limit.reserve(bytes);
      } catch (LogOverloadedException e) {
        result.completeExceptionally(e);
        return result;
      }
      Pending pending = new Pending(command, result, bytes, new AtomicBoolean(true));
      // Answered before it was submitted (timed out, or its caller gave up): it counts no more.
      result.whenComplete((r, failure) -> uncount(pending));
      // A backstop: the client gives up at the timeout, but a reply lost in a dying server must not hang callers.
      result.orTimeout(timeout.multipliedBy(2).toMillis(), TimeUnit.MILLISECONDS);
      queue.add(pending);
    }
    return result;
  }

  /** How many entries were first sent to {@code peer}. */
  long entriesSentTo(RaftPeerId peer) {
    return sentTo.getOrDefault(peer, 0L);
  }

  /** Submits everything accepted so far, waits for the answers (twice the timeout at most), then closes the client. */
  void close() {
    if (closed) {
      return;
    }
    closed = true;
    queue.add(STOP);
    long deadline = System.nanoTime() + timeout.multipliedBy(2).toNanos();
    try {
      thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      // Still waiting for a pipeline slot: give up rather than leave the thread behind.
      thread.interrupt();
      if (outstanding.tryAcquire(maxOutstanding, deadline - System.nanoTime(), TimeUnit.NANOSECONDS)) {
        outstanding.release(maxOutstanding);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (Pending late; (late = queue.poll()) != null; ) {
      if (late != STOP) {
        late.result().completeExceptionally(new LogClosedException());
      }
    }
    closeClient(client);
  }

  private void run() {
    boolean stopping = false;
    while (true) {
      Pending first;
      try {
        first = carried != null ? carried : stopping ? queue.poll() : queue.take();
        carried = null;
        if (first == STOP) {
          stopping = true;
          continue;
        }
        if (first == null) {
          return;
        }
        if (dropIfAnswered(first)) {
          continue;
        }
        outstanding.acquire();
        if (dropIfAnswered(first)) { // it may have timed out while all pipeline slots were busy
          outstanding.release();
          continue;
        }
      } catch (InterruptedException e) {
        return;
      }
      List<Pending> group = new ArrayList<>();
      group.add(first);
      stopping |= fill(group, first.bytes());
      submit(group);
    }
  }

  /** Adds queued appends to {@code group} while they fit; returns true if it passed the stop marker. */
  private boolean fill(List<Pending> group, long bytes) {
    boolean stop = false;
    while (group.size() < maxCommands) {
      Pending next = queue.poll();
      if (next == null) {
        break;
      }
      if (next == STOP) {
        // Keep draining: close promises to commit everything accepted before it.
        stop = true;
        continue;
      }
      if (dropIfAnswered(next)) {
        continue;
      }
      if (bytes + next.bytes() > maxEntryBytes) {
        carried = next;
        break;
      }
      group.add(next);
      bytes += next.bytes();
    }
    return stop;
  }

  /** An append whose caller was already answered (it timed out waiting) leaves the queue unsubmitted. */
  private boolean dropIfAnswered(Pending pending) {
    return pending.result().isDone();
  }

  /** The append leaves the queue's count once: when submitted, or when answered before that. */
  private void uncount(Pending pending) {
    if (pending.counted().compareAndSet(true, false)) {
      limit.release(pending.bytes());
    }
  }

  private void submit(List<Pending> group) {
    group.forEach(this::uncount);
    LogEntry.Builder entry = LogEntry.newBuilder();
    group.forEach(p -> entry.addCommands(p.command()));
    CompletableFuture<RaftClientReply> reply;
    try {
      replaceClientIfFailed();
      aimAtKnownLeader();
      sentTo.merge(client.getLeaderId(), 1L, Long::sum);
      reply = client.async().send(Message.valueOf(UnsafeByteOperations.unsafeWrap(entry.build().toByteArray())));
    } catch (RuntimeException e) {
      reply = CompletableFuture.failedFuture(e);
    }
    reply.whenComplete((r, failure) -> {
      outstanding.release();
      if (failure != null) {
        clientFailed = true;
      }
      Replies.complete(group.stream().map(Pending::result).toList(), r, failure, timeout, closed);
    });
  }

  private void replaceClientIfFailed() {
    if (!clientFailed) {
      return;
    }
    // This thread holds one permit; the others come back as the old client's requests finish.
    outstanding.acquireUninterruptibly(maxOutstanding - 1);
    try {
      closeClient(client);
      client = newClient.apply(knownLeader.get());
      clientFailed = false;
    } finally {
      outstanding.release(maxOutstanding - 1);
    }
  }

  /**
   * Swaps an idle client that would send to another peer than the known leader for one aimed at it. Only when
   * nothing else is in flight (this thread holds the one permit taken): a request still on its way keeps the old
   * client, which finds the leader itself, and the order of entries is kept.
   */
  private void aimAtKnownLeader() {
    RaftPeerId leader = knownLeader.get();
    if (leader == null || leader.equals(client.getLeaderId()) || !outstanding.tryAcquire(maxOutstanding - 1)) {
      return;
    }
    try {
      closeClient(client);
      client = newClient.apply(leader);
    } finally {
      outstanding.release(maxOutstanding - 1);
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
