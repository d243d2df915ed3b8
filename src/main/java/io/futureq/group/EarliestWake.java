package io.futureq.group;

import org.apache.pekko.actor.Cancellable;

/**
 * A {@link DueFeed}'s one wake-up, armed on the precise timer a little before the earliest time asked for
 * (reads run {@link DueFeed#READ_AHEAD_MS} ahead) and never more than {@link DueFeed#MAX_TIMER_MS} away. A
 * later time asked for while an earlier wake is armed is dropped: a wake with nothing to do only costs a
 * read, and the read it starts arms the next one. Owned by the feed, not thread-safe.
 */
final class EarliestWake {
  private final WakeTimer wakeTimer;
  private final Runnable wake;
  private Cancellable armed;
  private long wakeAtMs = Long.MAX_VALUE;

  /** @param wake tells the feed it is time; runs on the timer's thread */
  EarliestWake(WakeTimer wakeTimer, Runnable wake) {
    this.wakeTimer = wakeTimer;
    this.wake = wake;
  }

  /**
   * Wakes the feed a little before {@code atMs} unless an earlier wake is armed; {@link DueCursor#NO_WAKE}
   * asks for none.
   */
  void schedule(long atMs, long nowMs) {
    if (atMs == DueCursor.NO_WAKE) {
      return;
    }
    long at = Math.min(atMs - DueFeed.READ_AHEAD_MS, nowMs + DueFeed.MAX_TIMER_MS);
    if (at >= wakeAtMs) {
      return;
    }
    if (armed != null) {
      armed.cancel();
    }
    wakeAtMs = at;
    armed = wakeTimer.at(at, wake);
  }

  /** The wake came: any time asked for next arms a new one. */
  void fired() {
    wakeAtMs = Long.MAX_VALUE;
  }

  void cancel() {
    if (armed != null) {
      armed.cancel();
    }
  }
}
