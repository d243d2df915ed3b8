package io.futureq.group;

import java.time.Duration;
import java.time.InstantSource;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.typed.Scheduler;
import scala.concurrent.ExecutionContext;

/**
 * Runs a task at an instant of its {@link #clock()}, for due wake-ups; the groups and the due feed read the time
 * from the same clock, so a test that moves it (with {@code ManualTime} for the timers) owns their time. Pekko's
 * timers fire a tick or two late (about 2 ms at a 1 ms tick), which is most of a delivery's lateness when
 * deliveries are sparse; the broker uses {@link PreciseWakeTimer} instead. A task may run a little early or late:
 * callers read what is due by the clock when it runs, so an early wake delivers nothing early.
 */
public interface WakeTimer {

  /** Runs {@code task} at {@code atEpochMs}; the handle cancels it if it has not run yet. */
  Cancellable at(long atEpochMs, Runnable task);

  /** The clock whose instants {@link #at} takes: the wall clock, or in tests one they move. */
  InstantSource clock();

  /**
   * A timer on an actor system's scheduler, measured against {@code clock}: with {@code ManualTime} and a clock the
   * test moves by the same amounts, the test owns the time of whatever uses it.
   */
  static WakeTimer of(Scheduler scheduler, ExecutionContext executor, InstantSource clock) {
    return new WakeTimer() {
      @Override
      public Cancellable at(long atEpochMs, Runnable task) {
        return scheduler.scheduleOnce(Duration.ofMillis(Math.max(0, atEpochMs - clock.millis())), task, executor);
      }

      @Override
      public InstantSource clock() {
        return clock;
      }
    };
  }
}
