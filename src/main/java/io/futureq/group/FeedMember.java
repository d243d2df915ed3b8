package io.futureq.group;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * One group as its topic's {@link DueFeed} keeps it: where it stands (what it has been handed), whether it
 * asked for more, and how it takes its share of a read. Whatever the group's position passed while the group
 * was not looking (a message stored behind it) is handed over at once. Owned by the feed, not thread-safe.
 */
final class FeedMember {
  final String name;
  final ActorRef<ConsumerGroup.Command> ref;
  final DueCursor cursor;
  /** Asked for more ({@link DueFeed.Demand}) and not handed a share since. */
  boolean wants;
  /** A read of its own failed: the next one waits until then. */
  long noReadBeforeMs;

  FeedMember(String name, ActorRef<ConsumerGroup.Command> ref, DueCursor cursor) {
    this.name = name;
    this.ref = ref;
    this.cursor = cursor;
  }

  /** Behind the topic's {@code head}: the group is served by reads of its own until it is back there. */
  boolean behind(DueCursor head) {
    return DueKeys.compare(cursor.position(), head.position()) < 0;
  }

  /** Messages were stored: those behind the group's position are handed over at once. */
  void stored(DueFeed.Stored stored, long nowMs) {
    handOverLate(late -> cursor.stored(stored, nowMs, late));
  }

  /** A read the group took part in failed: its position stays. */
  void readFailed(long nowMs) {
    handOverLate(late -> cursor.movedTo(null, 0, nowMs, late));
  }

  /**
   * The shared read finished: if the group asked for more it takes its share and moves to the new head;
   * if not, it stays where it is (it lags from now on) unless its share is empty anyway.
   */
  void takeHeadRead(DueReader.Chunk chunk, long nowMs, Predicate<byte[]> removedDuringRead) {
    DueReader.Share share = chunk.forGroup(name, cursor.position(), removedDuringRead);
    boolean takes = wants || share.isEmpty();
    byte[] to = takes && chunk.lastKey() != null && DueKeys.compare(chunk.lastKey(), cursor.position()) > 0
        ? chunk.lastKey() : null;
    handOverLate(late -> cursor.movedTo(to, chunk.snapshotIndex(), nowMs, late));
    if (takes && !share.isEmpty()) {
      handOver(share);
    }
  }

  /**
   * The group's own read finished: it moves up to {@code bound}, where the head stood when the read
   * started, or less if the chunk is full.
   */
  void takeOwnRead(DueReader.Chunk chunk, byte[] bound, long nowMs, Predicate<byte[]> removedDuringRead) {
    DueReader.Share share = chunk.forGroup(name, null, removedDuringRead);
    byte[] to = chunk.full() ? chunk.lastKey() : bound;
    handOverLate(late -> cursor.movedTo(to, chunk.snapshotIndex(), nowMs, late));
    if (!share.isEmpty()) {
      handOver(share);
    }
  }

  private void handOver(DueReader.Share share) {
    wants = false;
    ref.tell(new ConsumerGroup.Due(share.messages(), share.delayed(), true));
  }

  /** Runs {@code step}, then hands the group at once what it found slipped behind the group's position. */
  private void handOverLate(Consumer<Consumer<DueMessage>> step) {
    List<DueMessage> late = new ArrayList<>(0);
    step.accept(late::add);
    if (!late.isEmpty()) {
      ref.tell(new ConsumerGroup.Due(late, List.of(), false));
    }
  }
}
