package io.futureq.log;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** What a failed future actually failed with. */
public final class Failures {
  private Failures() {}

  /**
   * {@code failure} without the {@link CompletionException} and {@link ExecutionException} layers that
   * futures wrap it in along the way: the exception that says what happened, and whose type callers map.
   */
  public static Throwable cause(Throwable failure) {
    Throwable t = failure;
    while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }
}
