package io.futureq.testing;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Waits for a condition instead of sleeping for a guessed time: polls every {@link #POLL} until the condition
 * holds, and fails after a bound with a message that says what was awaited. A condition that throws (a gRPC call to
 * a broker not yet ready, a connection refused) counts as "not yet"; the last such exception is named in the failure
 * and attached as its cause. An {@link Error} the condition throws (an {@link AssertionError} saying it can never hold
 * now, e.g. the process awaited has exited) ends the wait at once.
 *
 * <pre>{@code
 * Await.until("group g1 has a consumer", Duration.ofSeconds(30), () -> consumers("t", "g1") > 0);
 * long pending = Await.until("t has 0 pending", WAIT, () -> stats("t").getPending(), p -> p == 0);
 * Await.holdsFor("nothing delivered", Duration.ofSeconds(1), received::isEmpty);
 * }</pre>
 *
 * <p>The bounds are generous (a shared machine under load is slow, a passing test does not wait them out); a test
 * that must not see something happen for a while ({@link #holdsFor}) is the one legitimate bounded wait.
 */
public final class Await {
  /** How often a condition is asked again. */
  public static final Duration POLL = Duration.ofMillis(25);

  private Await() {
  }

  /** A condition that may throw: a throw means "not yet" for {@code until}, a failure for {@code holdsFor}. */
  @FunctionalInterface
  public interface Condition {
    boolean holds() throws Exception;
  }

  /** A value that may not be there yet: {@code null} (or a throw) means "not yet". */
  @FunctionalInterface
  public interface Probe<T> {
    T get() throws Exception;
  }

  /** What {@link Await} throws when the bound passes before the condition holds. */
  public static final class Timeout extends AssertionError {
    private static final long serialVersionUID = 1L;

    Timeout(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** Returns once {@code condition} holds; fails after {@code bound}. */
  public static void until(String what, Duration bound, Condition condition) {
    until(what, bound, condition, () -> "");
  }

  /** As {@link #until(String, Duration, Condition)}; on timeout the message adds {@code state} (what was seen). */
  public static void until(String what, Duration bound, Condition condition, Supplier<String> state) {
    poll(what, bound, () -> condition.holds() ? Boolean.TRUE : null, v -> true, state);
  }

  /** The first non-null value {@code probe} gives; fails after {@code bound}. */
  public static <T> T value(String what, Duration bound, Probe<T> probe) {
    return value(what, bound, probe, () -> "");
  }

  /** As {@link #value(String, Duration, Probe)}; on timeout the message adds {@code state} (what was seen). */
  public static <T> T value(String what, Duration bound, Probe<T> probe, Supplier<String> state) {
    return poll(what, bound, probe, v -> true, state);
  }

  /**
   * The first value of {@code probe} that {@code accepted} takes; fails after {@code bound}, naming the last value
   * seen (e.g. {@code until("t has 0 pending", WAIT, () -> stats(t).getPending(), p -> p == 0)}).
   */
  public static <T> T until(String what, Duration bound, Probe<T> probe, Predicate<? super T> accepted) {
    Object[] last = {null};
    return poll(what, bound, () -> {
      T v = probe.get();
      last[0] = v;
      return v;
    }, accepted, () -> "last seen: " + last[0]);
  }

  /**
   * Whether {@code condition} comes to hold within {@code bound}, without failing: for a harness that measures and
   * reports a miss with the rest of its findings (a soak run's "drained: false") rather than stopping at once.
   */
  public static boolean holdsWithin(String what, Duration bound, Condition condition) {
    try {
      until(what, bound, condition);
      return true;
    } catch (Timeout t) {
      return false;
    }
  }

  /**
   * Asserts that {@code condition} holds now and keeps holding for {@code period} (asked every {@link #POLL}, and once
   * more at the end): for what must <em>not</em> happen, where a bounded wait is the point. A throw is a failure.
   */
  public static void holdsFor(String what, Duration period, Condition condition) {
    long start = System.nanoTime();
    long end = start + period.toNanos();
    while (true) {
      long now = System.nanoTime();
      boolean holds;
      try {
        holds = condition.holds();
      } catch (Exception e) {
        throw new AssertionError("could not check that " + what + " (" + elapsed(start) + " into "
            + format(period) + "): " + e, e);
      }
      if (!holds) {
        throw new AssertionError("expected " + what + " for " + format(period) + ", but it broke after "
            + elapsed(start));
      }
      if (now >= end) {
        return;
      }
      sleep(Math.min(POLL.toNanos(), end - now), what);
    }
  }

  private static <T> T poll(String what, Duration bound, Probe<T> probe, Predicate<? super T> accepted,
      Supplier<String> state) {
    Objects.requireNonNull(what, "what");
    long start = System.nanoTime();
    long deadline = start + bound.toNanos();
    Exception lastFailure = null;
    while (true) {
      boolean last = System.nanoTime() >= deadline;
      try {
        T v = probe.get();
        if (v != null && accepted.test(v)) {
          return v;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted awaiting " + what, e);
      } catch (Exception e) {
        lastFailure = e;
      }
      if (last) {
        StringBuilder message = new StringBuilder("timed out after ").append(format(bound)).append(" awaiting ")
            .append(what);
        String seen = state.get();
        if (!seen.isEmpty()) {
          message.append("; ").append(seen);
        }
        if (lastFailure != null) {
          message.append("; last exception: ").append(lastFailure);
        }
        throw new Timeout(message.toString(), lastFailure);
      }
      sleep(Math.min(POLL.toNanos(), Math.max(0, deadline - System.nanoTime())), what);
    }
  }

  private static void sleep(long nanos, String what) {
    try {
      Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000)); // the poll interval: the one sleep meant here
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted awaiting " + what, e);
    }
  }

  private static String elapsed(long startNanos) {
    return format(Duration.ofNanos(System.nanoTime() - startNanos));
  }

  private static String format(Duration d) {
    long ms = d.toMillis();
    return ms % 1000 == 0 ? ms / 1000 + " s" : ms < 1000 ? ms + " ms" : String.format("%.1f s", ms / 1000.0);
  }
}
