package io.futureq.log;

/** An append reached a log that is shutting down; the command was not applied. */
public final class LogClosedException extends IllegalStateException {
  public LogClosedException() {
    super("the event log is closed (the broker is shutting down)");
  }
}
