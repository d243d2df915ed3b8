package io.futureq.app;

/** The broker cannot start (storage unusable, port taken, ...); the process exits with status 2. */
public final class StartupException extends RuntimeException {
  public StartupException(String message, Throwable cause) {
    super(message, cause);
  }
}
