package io.futureq.security;

/** A publish over its principal's rate limit; answered RESOURCE_EXHAUSTED, nothing of it stored. */
public final class RateLimited extends RuntimeException {
  RateLimited(String message) {
    super(message, null, false, false);
  }
}
