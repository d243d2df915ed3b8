package io.futureq.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AwaitTest {
  private static final Duration LONG = Duration.ofSeconds(30);

  @Test
  void returnsOnceTheConditionHolds() {
    AtomicInteger asked = new AtomicInteger();
    long start = System.nanoTime();
    Await.until("the third ask", LONG, () -> asked.incrementAndGet() >= 3);
    assertEquals(3, asked.get());
    assertTrue(System.nanoTime() - start < LONG.toNanos() / 2, "returned as soon as it held, not at the bound");
  }

  @Test
  void aConditionAlreadyTrueIsAskedOnce() {
    AtomicInteger asked = new AtomicInteger();
    Await.until("already true", LONG, () -> asked.incrementAndGet() > 0);
    assertEquals(1, asked.get());
  }

  @Test
  void aTimeoutSaysWhatWasAwaitedAndTheBound() {
    long start = System.nanoTime();
    Await.Timeout timeout = assertThrows(Await.Timeout.class,
        () -> Await.until("group g1 has a consumer", Duration.ofMillis(200), () -> false));
    long tookMs = (System.nanoTime() - start) / 1_000_000;
    assertTrue(tookMs >= 200, "gave up before the bound: " + tookMs + " ms");
    assertTrue(timeout.getMessage().contains("group g1 has a consumer"), timeout.getMessage());
    assertTrue(timeout.getMessage().contains("200 ms"), timeout.getMessage());
    assertTrue(timeout instanceof AssertionError, "a test failure, not an error");
  }

  @Test
  void aThrowIsNotYetAndTheLastOneIsNamedInTheTimeout() {
    AtomicInteger asked = new AtomicInteger();
    Await.until("the broker answers", LONG, () -> {
      if (asked.incrementAndGet() < 3) {
        throw new IOException("connection refused");
      }
      return true;
    });
    assertEquals(3, asked.get());

    IOException last = new IOException("UNAVAILABLE: not ready, try " + asked.incrementAndGet());
    Await.Timeout timeout = assertThrows(Await.Timeout.class, () -> Await.until("the broker answers",
        Duration.ofMillis(100), () -> {
          throw last;
        }));
    assertTrue(timeout.getMessage().contains("the broker answers"), timeout.getMessage());
    assertTrue(timeout.getMessage().contains("last exception: java.io.IOException: UNAVAILABLE: not ready, try 4"),
        timeout.getMessage());
    assertSame(last, timeout.getCause());
  }

  @Test
  void anErrorFromTheConditionEndsTheWaitAtOnce() {
    AtomicInteger asked = new AtomicInteger();
    AssertionError never = new AssertionError("the broker exited with 1");
    long start = System.nanoTime();
    assertSame(never, assertThrows(AssertionError.class, () -> Await.until("the broker ready", LONG, () -> {
      asked.incrementAndGet();
      throw never;
    })));
    assertEquals(1, asked.get());
    assertTrue(System.nanoTime() - start < LONG.toNanos() / 2, "waited on after the error");
  }

  @Test
  void aValueIsAwaitedUntilItIsThere() {
    AtomicInteger asked = new AtomicInteger();
    String value = Await.value("the leader", LONG, () -> asked.incrementAndGet() < 3 ? null : "node-2");
    assertEquals("node-2", value);
    assertThrows(Await.Timeout.class, () -> Await.value("nothing", Duration.ofMillis(50), () -> null));
  }

  @Test
  void aValueIsAwaitedUntilItIsAcceptedAndTheTimeoutNamesTheLastOneSeen() {
    AtomicInteger asked = new AtomicInteger();
    assertEquals(5, Await.until("5 asks", LONG, asked::incrementAndGet, n -> n == 5));
    Await.Timeout timeout = assertThrows(Await.Timeout.class,
        () -> Await.until("pending 0", Duration.ofMillis(100), () -> 7L, pending -> pending == 0));
    assertTrue(timeout.getMessage().contains("pending 0") && timeout.getMessage().contains("last seen: 7"),
        timeout.getMessage());
  }

  @Test
  void theTimeoutAddsTheStateAskedFor() {
    Await.Timeout timeout = assertThrows(Await.Timeout.class,
        () -> Await.until("delivery", Duration.ofMillis(50), () -> false, () -> "the cluster then: 2 members"));
    assertTrue(timeout.getMessage().contains("the cluster then: 2 members"), timeout.getMessage());
  }

  @Test
  void holdsWithinSaysWhetherTheConditionCameToHold() {
    AtomicInteger asked = new AtomicInteger();
    assertTrue(Await.holdsWithin("the third ask", LONG, () -> asked.incrementAndGet() >= 3));
    assertEquals(3, asked.get());
    long start = System.nanoTime();
    assertFalse(Await.holdsWithin("never", Duration.ofMillis(100), () -> false));
    assertTrue(System.nanoTime() - start >= Duration.ofMillis(100).toNanos(), "gave up before the bound");
  }

  @Test
  void holdsForPassesWhenTheConditionKeepsHoldingForThePeriod() {
    AtomicInteger asked = new AtomicInteger();
    long start = System.nanoTime();
    Await.holdsFor("nothing delivered", Duration.ofMillis(300), () -> asked.incrementAndGet() > 0);
    long tookMs = (System.nanoTime() - start) / 1_000_000;
    assertTrue(tookMs >= 300, "the period was not waited out: " + tookMs + " ms");
    assertTrue(asked.get() >= 3, "asked only " + asked.get() + " times");
  }

  @Test
  void holdsForFailsAsSoonAsTheConditionBreaks() {
    AtomicInteger asked = new AtomicInteger();
    long start = System.nanoTime();
    AssertionError broken = assertThrows(AssertionError.class,
        () -> Await.holdsFor("nothing delivered", LONG, () -> asked.incrementAndGet() < 3));
    assertTrue(System.nanoTime() - start < LONG.toNanos() / 2, "waited out the period after the break");
    assertEquals(3, asked.get());
    assertTrue(broken.getMessage().contains("nothing delivered") && broken.getMessage().contains("30 s"),
        broken.getMessage());
  }

  @Test
  void holdsForFailsWhenTheConditionThrows() {
    IllegalStateException boom = new IllegalStateException("boom");
    AssertionError failed = assertThrows(AssertionError.class, () -> Await.holdsFor("the store open",
        Duration.ofMillis(200), () -> {
          throw boom;
        }));
    assertSame(boom, failed.getCause());
    assertTrue(failed.getMessage().contains("the store open"), failed.getMessage());
  }

  @Test
  void anInterruptedWaitFailsAndKeepsTheInterrupt() {
    Thread.currentThread().interrupt();
    try {
      AssertionError interrupted = assertThrows(AssertionError.class,
          () -> Await.until("never", LONG, () -> false));
      assertTrue(interrupted.getMessage().contains("interrupted awaiting never"), interrupted.getMessage());
      assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is kept");
    } finally {
      Thread.interrupted();
    }
  }
}
