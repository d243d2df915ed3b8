package io.futureq.security;

/**
 * No valid bearer token; answered UNAUTHENTICATED. The client always gets {@link #MESSAGE}: saying whether the
 * token was missing, unknown, expired or revoked would help someone guessing tokens. The broker logs the reason at
 * DEBUG.
 */
public final class NotAuthenticated extends RuntimeException {
  public static final String MESSAGE = "missing or invalid credentials: send \"authorization: Bearer TOKEN\"";

  NotAuthenticated() {
    super(MESSAGE, null, false, false);
  }
}
