package io.futureq.group;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;

/**
 * A storage executor whose tasks (a due feed's reads) wait until the test runs them, so that each read is counted
 * and can be held while something else happens. The feed starts a read as it handles a message, so once it has
 * answered a later one ({@link DueFeed.CatchUp}) every read it started meanwhile is queued here.
 */
final class HeldReads implements Executor {
  private final ConcurrentLinkedQueue<Runnable> queued = new ConcurrentLinkedQueue<>();

  @Override
  public void execute(Runnable task) {
    queued.add(task);
  }

  /** Reads started and not run yet. */
  int queued() {
    return queued.size();
  }

  /** Runs the reads queued now, on this thread; returns how many ran. */
  int runQueued() {
    int ran = 0;
    for (Runnable task; (task = queued.poll()) != null; ran++) {
      task.run();
    }
    return ran;
  }
}
