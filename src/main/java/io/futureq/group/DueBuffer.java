package io.futureq.group;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.ActorContext;

/**
 * A group's buffer of due messages handed over by its topic's {@link DueFeed} and not delivered yet: it
 * asks the feed for more when it runs low and someone may take them, and holds what is not due by the
 * clock (read ahead, or the clock stepped back) until its due time. Shared by {@link ConsumerGroup} and
 * {@link UniversalFanout}; owned by one actor, not thread-safe.
 */
final class DueBuffer {
  /** Due messages waiting for a consumer with credit, in the order the feed handed them over. */
  final ArrayDeque<Pending> ready = new ArrayDeque<>();
  private final ActorContext<ConsumerGroup.Command> ctx;
  private final GroupContext gc;
  /** Handed over but not due by the clock yet. Held until due: never early, whatever the clock does. */
  private final PriorityQueue<Pending> notYetDue =
      new PriorityQueue<>((a, b) -> Arrays.compareUnsigned(a.message().storageKey(), b.message().storageKey()));
  private Cancellable heldWake;
  /** Asked the feed for more and not answered yet. */
  private boolean asked;

  /** Joins the topic's feed, reading after {@code startAfter} (null: from the topic's start). */
  DueBuffer(ActorContext<ConsumerGroup.Command> ctx, GroupContext gc, byte[] startAfter) {
    this.ctx = ctx;
    this.gc = gc;
    gc.feed().tell(new DueFeed.Join(gc.group(), ctx.getSelf(), startAfter));
  }

  void onDue(ConsumerGroup.Due due) {
    due.messages().forEach(m -> ready.addLast(new Pending(m, 0)));
    if (due.answersDemand()) {
      asked = false;
    }
  }

  void onRemoved(List<byte[]> storageKeys) {
    Set<ByteBuffer> keys = keySet(storageKeys);
    ready.removeIf(p -> keys.contains(ByteBuffer.wrap(p.message().storageKey())));
    notYetDue.removeIf(p -> keys.contains(ByteBuffer.wrap(p.message().storageKey())));
  }

  /**
   * The next buffered message that is due by {@code nowMs}, or null. A message that is not due yet is
   * held and handed out once due.
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

  /** Asks the feed for more when someone may take it ({@code wanted}) and the buffer runs low. */
  void askIfLow(boolean wanted) {
    if (wanted && !asked && ready.size() < gc.topicSettings().readChunk()) {
      asked = true;
      gc.feed().tell(new DueFeed.Demand(ctx.getSelf()));
    }
  }

  void stop() {
    if (heldWake != null) {
      heldWake.cancel();
    }
  }

  private void armHeldWake(long nowMs) {
    if (heldWake != null) {
      heldWake.cancel();
    }
    long at = Math.min(notYetDue.peek().message().message().getDueMs(), nowMs + DueFeed.MAX_TIMER_MS);
    ActorRef<ConsumerGroup.Command> self = ctx.getSelf();
    heldWake = gc.wakeTimer().at(at, () -> self.tell(new ConsumerGroup.Wake()));
  }

  static Set<ByteBuffer> keySet(List<byte[]> storageKeys) {
    Set<ByteBuffer> keys = new HashSet<>();
    storageKeys.forEach(k -> keys.add(ByteBuffer.wrap(k)));
    return keys;
  }
}
