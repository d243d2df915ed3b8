package io.futureq.app;

import java.util.concurrent.ForkJoinPool;

/**
 * Sizes the JVM's common fork-join pool before anything uses it. With fewer than three processors its
 * parallelism is 1, and then every {@code CompletableFuture} {@code *Async} call without an executor starts a
 * thread of its own: Ratis makes one such call for each append a follower takes, and Pekko gRPC one for each unary
 * call. A broker of the failover bench on this 2-core machine started 45 threads a second (JFR), one on the path of
 * every Raft commit. With a parallelism of 2 or more those calls run on the pool's kept threads.
 */
public final class CommonPool {
  /** The property the JDK reads once, when the common pool is first used. */
  public static final String PARALLELISM = "java.util.concurrent.ForkJoinPool.common.parallelism";
  /** At least this many threads, so that a slow task (a gRPC handler reading storage) holds up no Raft append. */
  static final int LEAST_PARALLELISM = 4;

  private CommonPool() {}

  /**
   * Sets the pool's parallelism to the processors, at least {@link #LEAST_PARALLELISM}, unless the JVM was given
   * one; call first thing in {@code main}, before any code uses the pool.
   *
   * @return the common pool's parallelism: what was set, or what it already had if something used it first
   */
  public static int size() {
    if (System.getProperty(PARALLELISM) == null) {
      System.setProperty(PARALLELISM,
          Integer.toString(Math.max(LEAST_PARALLELISM, Runtime.getRuntime().availableProcessors())));
    }
    return ForkJoinPool.getCommonPoolParallelism();
  }
}
