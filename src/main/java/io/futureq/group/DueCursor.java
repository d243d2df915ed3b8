package io.futureq.group;

import io.futureq.storage.StorageKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Where a read position stands: the cursor (last key read), whether a read is running, and when to
 * read next. Announcements of new messages decide between "read it later" (ahead of the cursor:
 * maybe wake earlier) and "it slipped behind the cursor" (hand it over directly, see
 * {@link ReadHistory}). {@link DueFeed} keeps one for the topic's head, which decides when to read,
 * and one per group, which says what that group has been handed. Not thread-safe: owned by one actor.
 */
final class DueCursor {
  static final long NO_WAKE = Long.MAX_VALUE;

  private final DueReader reader;
  private final ReadHistory history;
  private final List<DueFeed.Stored> storedDuringRead = new ArrayList<>();
  private byte[] cursor;
  private boolean reading;
  private boolean caughtUp;
  private long wakeAtMs = NO_WAKE;

  /** @param startAfter the first read starts after this key (null: from the topic's start) */
  DueCursor(DueReader reader, byte[] startAfter) {
    this.reader = reader;
    this.cursor = startAfter;
    this.history = new ReadHistory(startAfter);
  }

  byte[] position() {
    return cursor;
  }

  /**
   * Whether a read should start now: none running, and not caught up until a later wake (reads run
   * {@code aheadMs} before the next due time).
   */
  boolean wantsRead(long nowMs, long aheadMs) {
    return !reading && !(caughtUp && nowMs + aheadMs < wakeAtMs);
  }

  void readStarted() {
    reading = true;
  }

  /**
   * Takes a finished read: moves the cursor, then replays announcements that came during it.
   *
   * @param late receives messages that slipped behind the cursor
   * @return when to wake for the next read, or {@link #NO_WAKE}
   */
  long readDone(DueReader.Chunk chunk, long nowMs, Consumer<DueMessage> late) {
    caughtUp = !chunk.full();
    wakeAtMs = caughtUp ? chunk.nextWakeMs() : NO_WAKE;
    return Math.min(wakeAtMs, movedTo(chunk.lastKey(), chunk.snapshotIndex(), nowMs, late));
  }

  /**
   * A read this position took part in finished: everything up to {@code lastKey} (null: nothing, the
   * cursor stays) was read from the snapshot at {@code snapshotIndex}. Replays the announcements that
   * came during the read.
   *
   * @return an earlier wake time to schedule, or {@link #NO_WAKE}
   */
  long movedTo(byte[] lastKey, long snapshotIndex, long nowMs, Consumer<DueMessage> late) {
    reading = false;
    if (lastKey != null) {
      cursor = lastKey;
      history.recordRead(cursor, snapshotIndex);
    }
    long wake = NO_WAKE;
    for (DueFeed.Stored stored : storedDuringRead) {
      wake = Math.min(wake, place(stored, nowMs, late));
    }
    storedDuringRead.clear();
    return wake;
  }

  /** A read failed: try again at {@code retryAtMs}, which is returned as the wake time. */
  long readFailed(long retryAtMs, long nowMs, Consumer<DueMessage> late) {
    movedTo(null, 0, nowMs, late);
    caughtUp = true;
    wakeAtMs = retryAtMs;
    return retryAtMs;
  }

  boolean reading() {
    return reading;
  }

  /** The wake timer fired: the next read may start. */
  void woke() {
    caughtUp = false;
    wakeAtMs = NO_WAKE;
  }

  /**
   * New messages were committed.
   *
   * @return an earlier wake time to schedule, or {@link #NO_WAKE}
   */
  long stored(DueFeed.Stored stored, long nowMs, Consumer<DueMessage> late) {
    if (reading) {
      storedDuringRead.add(stored);
      return NO_WAKE;
    }
    return place(stored, nowMs, late);
  }

  private long place(DueFeed.Stored stored, long nowMs, Consumer<DueMessage> late) {
    long wake = NO_WAKE;
    for (DueMessage m : stored.messages()) {
      if (cursor != null && m.compareKey(cursor) <= 0) {
        if (!history.seen(m.storageKey(), stored.index()) && !m.expiredAt(nowMs)) {
          late.accept(m);
        }
      } else {
        history.announced(stored.index());
        long due = reader.wakeTimeOf(StorageKeys.dueBucketOf(m.storageKey()));
        if (caughtUp && due < wakeAtMs) {
          wakeAtMs = due;
          wake = due;
        }
      }
    }
    return wake;
  }
}
