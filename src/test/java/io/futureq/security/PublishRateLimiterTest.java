package io.futureq.security;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.config.AuthSettings;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The token buckets on a clock the test moves. */
class PublishRateLimiterTest {
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final Principal alice = new Principal("alice", List.of());

  private PublishRateLimiter limiter(long messagesPerSecond, long bytesPerSecond) {
    AuthSettings settings = new AuthSettings(false, null, null, "", "", null, Duration.ZERO, Duration.ZERO,
        messagesPerSecond, bytesPerSecond);
    return new PublishRateLimiter(settings, null, nanos::get);
  }

  @Test
  void aBucketHoldsOneSecondAndRefillsAtTheRate() {
    PublishRateLimiter limiter = limiter(10, 0);
    limiter.admit(alice, 10, 1);
    assertThrows(RateLimited.class, () -> limiter.admit(alice, 1, 1));
    nanos.addAndGet(Duration.ofMillis(500).toNanos());
    limiter.admit(alice, 5, 1);
    assertThrows(RateLimited.class, () -> limiter.admit(alice, 1, 1));
    nanos.addAndGet(Duration.ofHours(1).toNanos());
    limiter.admit(alice, 10, 1); // an idle hour still holds only one second's worth
    assertThrows(RateLimited.class, () -> limiter.admit(alice, 1, 1));
  }

  @Test
  void aRefusedRequestTakesNothingFromEitherBucket() {
    PublishRateLimiter limiter = limiter(10, 100);
    RateLimited bytes = assertThrows(RateLimited.class, () -> limiter.admit(alice, 5, 101));
    assertTrue(bytes.getMessage().contains("100 bytes/s, and this request alone has 101 bytes"), bytes.getMessage());
    limiter.admit(alice, 10, 100); // both buckets still full
  }

  @Test
  void principalsHaveBucketsOfTheirOwnAndZeroIsUnlimited() {
    PublishRateLimiter limiter = limiter(1, 0);
    limiter.admit(alice, 1, 1_000_000);
    assertDoesNotThrow(() -> limiter.admit(new Principal("bob", List.of()), 1, 1));
    assertDoesNotThrow(() -> limiter(0, 0).admit(alice, 1_000_000, 1L << 40));
  }

  /** Sizing a publish walks all its messages: a limiter with no byte limit never asks for the size. */
  @Test
  void theRequestsSizeIsAskedOnlyWhenABytesLimitApplies() {
    AtomicLong asked = new AtomicLong();
    limiter(100, 0).admit(alice, 1, () -> asked.incrementAndGet());
    assertEquals(0, asked.get());
    limiter(100, 1000).admit(alice, 1, () -> asked.incrementAndGet());
    assertEquals(1, asked.get());
  }
}
