package io.futureq.testing;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock a test moves: it starts at the wall clock's time and moves on only by {@link #advance}, by the same
 * amounts as {@code ManualTime} moves the actor system's scheduler, so that actors whose timers and clock readings
 * both follow the test never see the two disagree. Thread-safe.
 */
public final class ManualClock implements InstantSource {
  private final AtomicLong nowMs;

  public ManualClock() {
    this(System.currentTimeMillis());
  }

  public ManualClock(long startMs) {
    this.nowMs = new AtomicLong(startMs);
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(nowMs.get());
  }

  @Override
  public long millis() {
    return nowMs.get();
  }

  public void advance(Duration amount) {
    nowMs.addAndGet(amount.toMillis());
  }
}
