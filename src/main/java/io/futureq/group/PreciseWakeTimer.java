package io.futureq.group;

import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.Cancellable;

/**
 * Due wake-ups with sub-millisecond precision: one thread parks until the next instant
 * ({@link ScheduledThreadPoolExecutor} waits on {@code System.nanoTime}), measured from a microsecond
 * reading of the wall clock. Tasks must be short (they tell an actor). Close it to stop the thread.
 */
public final class PreciseWakeTimer implements WakeTimer, AutoCloseable {
  private final ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
    Thread t = new Thread(r, "futureq-due-timer");
    t.setDaemon(true);
    return t;
  });

  public PreciseWakeTimer() {
    // Cancelled wake-ups are dropped at once: a group re-arms often, and most arms are cancelled.
    executor.setRemoveOnCancelPolicy(true);
  }

  @Override
  public InstantSource clock() {
    return InstantSource.system();
  }

  @Override
  public Cancellable at(long atEpochMs, Runnable task) {
    Instant now = Instant.now();
    long nowNanos = now.getEpochSecond() * 1_000_000_000L + now.getNano();
    long delayNanos = Math.max(0, atEpochMs * 1_000_000L - nowNanos);
    ScheduledFuture<?> future = executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    return new Cancellable() {
      @Override
      public boolean cancel() {
        return future.cancel(false);
      }

      @Override
      public boolean isCancelled() {
        return future.isCancelled();
      }
    };
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
