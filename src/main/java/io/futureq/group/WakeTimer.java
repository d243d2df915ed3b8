package io.futureq.group;

import java.time.Duration;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.typed.Scheduler;
import scala.concurrent.ExecutionContext;

/**
 * Runs a task at a wall-clock instant, for due wake-ups. Pekko's timers fire a tick or two late
 * (about 2 ms at a 1 ms tick), which is most of a delivery's lateness when deliveries are sparse;
 * the broker uses {@link PreciseWakeTimer} instead. A task may run a little early or late: callers
 * read what is due by the clock when it runs, so an early wake delivers nothing early.
 */
public interface WakeTimer {

  /** Runs {@code task} at {@code atEpochMs}; the handle cancels it if it has not run yet. */
  Cancellable at(long atEpochMs, Runnable task);

  /** A timer on an actor system's scheduler: follows {@code ManualTime} in tests. */
  static WakeTimer of(Scheduler scheduler, ExecutionContext executor) {
    return (atEpochMs, task) -> scheduler.scheduleOnce(
        Duration.ofMillis(Math.max(0, atEpochMs - System.currentTimeMillis())), task, executor);
  }
}
