package io.futureq.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The consumer's wait before resubscribing: doubled per failure up to 5 s, jittered over its upper half. */
class ReconnectDelayTest {
  private static final Duration FIRST = Duration.ofMillis(100);

  @Test
  void doublesPerFailureUpToFiveSeconds() {
    assertEquals(99, FutureQConsumer.reconnectDelayMs(FIRST, 0, 0.999999));
    assertEquals(399, FutureQConsumer.reconnectDelayMs(FIRST, 2, 0.999999));
    assertEquals(4999, FutureQConsumer.reconnectDelayMs(FIRST, 6, 0.999999));
    assertEquals(4999, FutureQConsumer.reconnectDelayMs(FIRST, 60, 0.999999));
  }

  /** Consumers of a restarted broker come back spread over half the backoff, not all at once. */
  @Test
  void isSpreadOverTheUpperHalfOfTheBackoff() {
    assertEquals(50, FutureQConsumer.reconnectDelayMs(FIRST, 0, 0.0));
    assertEquals(75, FutureQConsumer.reconnectDelayMs(FIRST, 0, 0.5));
    assertEquals(2500, FutureQConsumer.reconnectDelayMs(FIRST, 9, 0.0));
  }
}
