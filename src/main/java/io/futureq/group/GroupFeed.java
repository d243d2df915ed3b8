package io.futureq.group;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.ActorContext;

/**
 * What a group reads of its topic: the due cursor, chunked reads on the storage executor, the
 * wake-up at the next due time, and the buffer of due messages read but not handed out yet.
 * Shared by {@link ConsumerGroup} and {@link UniversalFanout}; owned by one actor, not thread-safe.
 */
final class GroupFeed {
  static final long MAX_TIMER_MS = Duration.ofHours(1).toMillis();
  /**
   * Reads start this long before the next due time, so that a read's latency (a hop to the storage
   * executor and a RocksDB range scan, ~0.5 ms) is not added to the delivery's; messages read early
   * are held and handed out at their due time.
   */
  static final long READ_AHEAD_MS = 3;

  /** Due messages read and waiting for a consumer with credit, in due order. */
  final ArrayDeque<Pending> ready = new ArrayDeque<>();
  private final ActorContext<ConsumerGroup.Command> ctx;
  private final GroupContext gc;
  private final DueReader reader;
  private final DueCursor due;
  /** Read or announced, but not due by the clock yet: the clock stepped back. Held until due. */
  private final PriorityQueue<Pending> notYetDue =
      new PriorityQueue<>((a, b) -> Arrays.compareUnsigned(a.message().storageKey(), b.message().storageKey()));
  private Cancellable wake;
  private Cancellable heldWake;

  /** @param startAfter the first read starts after this key (null: from the topic's start) */
  GroupFeed(ActorContext<ConsumerGroup.Command> ctx, GroupContext gc, byte[] startAfter) {
    this.ctx = ctx;
    this.gc = gc;
    this.reader = new DueReader(gc.store(), gc.bucketMs());
    this.due = new DueCursor(reader, startAfter);
  }

  void onStored(ConsumerGroup.MessagesStored stored) {
    long now = System.currentTimeMillis();
    scheduleWake(due.stored(stored, now, m -> ready.addLast(new Pending(m, 0))), now);
  }

  void onRemoved(List<byte[]> storageKeys) {
    Set<ByteBuffer> keys = keySet(storageKeys);
    ready.removeIf(p -> keys.contains(ByteBuffer.wrap(p.message().storageKey())));
    notYetDue.removeIf(p -> keys.contains(ByteBuffer.wrap(p.message().storageKey())));
  }

  /** A read finished: its messages join the buffer, and the next wake is armed. */
  void onReadDone(ConsumerGroup.ReadDone done) {
    long now = System.currentTimeMillis();
    if (done.failure() != null) {
      ctx.getLog().warn("reading due messages of topic {} group '{}' failed; retrying", gc.topic(), gc.group(),
          done.failure());
      scheduleWake(due.readFailed(now + gc.topicSettings().retryBackoff().toMillis()), now);
      return;
    }
    done.chunk().messages().forEach(m -> ready.addLast(new Pending(m, 0)));
    scheduleWake(due.readDone(done.chunk(), now, m -> ready.addLast(new Pending(m, 0))), now);
  }

  void onWake() {
    due.woke();
  }

  /**
   * The next buffered message that is due by {@code nowMs}, or null. A message that is not due yet
   * (the wall clock stepped back since it was read or announced behind the cursor) is held and
   * handed out once due: never early, whatever the clock does.
   */
  Pending nextDue(long nowMs) {
    if (!notYetDue.isEmpty() && notYetDue.peek().message().message().getDueMs() <= nowMs) {
      List<Pending> due = new ArrayList<>();
      while (!notYetDue.isEmpty() && notYetDue.peek().message().message().getDueMs() <= nowMs) {
        due.add(notYetDue.poll());
      }
      for (int i = due.size() - 1; i >= 0; i--) {
        ready.addFirst(due.get(i)); // ahead of the rest, in due order
      }
      if (!notYetDue.isEmpty()) {
        armHeldWake(nowMs); // for the next one held
      }
    }
    while (!ready.isEmpty()) {
      Pending p = ready.pollFirst();
      if (p.message().message().getDueMs() <= nowMs) {
        return p;
      }
      notYetDue.add(p);
      armHeldWake(nowMs);
    }
    return null;
  }

  /** Messages buffered, due or held. */
  int buffered() {
    return ready.size() + notYetDue.size();
  }

  /**
   * Starts a read when someone may take its messages, the buffer runs low and something may be due.
   *
   * @param ackGroup skip messages this group acked (null for universal subscribers)
   */
  void maybeRead(long now, boolean wanted, String ackGroup) {
    if (!wanted || ready.size() >= gc.topicSettings().readChunk() || !due.wantsRead(now, READ_AHEAD_MS)) {
      return;
    }
    due.readStarted();
    byte[] from = due.position();
    CompletableFuture<DueReader.Chunk> read = CompletableFuture.supplyAsync(
        () -> reader.read(gc.topic(), from, now + READ_AHEAD_MS, now, gc.topicSettings().readChunk(), ackGroup),
        gc.storageExecutor());
    ctx.pipeToSelf(read, ConsumerGroup.ReadDone::new);
  }

  void stop() {
    if (wake != null) {
      wake.cancel();
    }
    if (heldWake != null) {
      heldWake.cancel();
    }
  }

  private void armHeldWake(long nowMs) {
    if (heldWake != null) {
      heldWake.cancel();
    }
    long at = Math.min(notYetDue.peek().message().message().getDueMs(), nowMs + MAX_TIMER_MS);
    ActorRef<ConsumerGroup.Command> self = ctx.getSelf();
    heldWake = gc.wakeTimer().at(at, () -> self.tell(new ConsumerGroup.Wake()));
  }

  /** Wakes the group at the due time on the precise timer; a later arm replaces an earlier one. */
  private void scheduleWake(long atMs, long now) {
    if (atMs != DueCursor.NO_WAKE) {
      if (wake != null) {
        wake.cancel();
      }
      ActorRef<ConsumerGroup.Command> self = ctx.getSelf();
      long at = Math.min(atMs - READ_AHEAD_MS, now + MAX_TIMER_MS);
      wake = gc.wakeTimer().at(at, () -> self.tell(new ConsumerGroup.Wake()));
    }
  }

  static Set<ByteBuffer> keySet(List<byte[]> storageKeys) {
    Set<ByteBuffer> keys = new HashSet<>();
    storageKeys.forEach(k -> keys.add(ByteBuffer.wrap(k)));
    return keys;
  }
}
