package io.futureq.log.raft;

import static io.futureq.log.Commands.message;
import static io.futureq.log.Commands.store;
import static io.futureq.log.raft.RaftCluster.TOPIC;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.app.CommonPool;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ratis hands each append a follower takes to {@code CompletableFuture}'s default async executor, which starts a
 * thread per task while the common pool's parallelism is 1 (fewer than three processors). The launcher sizes the
 * pool ({@link CommonPool}), and so does the tests' JVM (surefire's argLine), for the in-process brokers to run as
 * real ones do.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class FollowerAppendThreadsTest {
  private static final int APPENDS = 200;

  @TempDir
  Path dir;

  private RaftCluster cluster;

  @AfterEach
  void close() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void followersTakeAppendsWithoutStartingAThreadForEach() {
    assertTrue(ForkJoinPool.getCommonPoolParallelism() > 1, "the common pool's parallelism is "
        + ForkJoinPool.getCommonPoolParallelism() + ": set " + CommonPool.PARALLELISM);
    cluster = RaftCluster.start(dir, 3, 1_000_000, 8L << 20);
    RaftNode leader = cluster.awaitLeader();
    for (int i = 0; i < 20; i++) {
      RaftCluster.append(leader, store(message(TOPIC, "warm-up-" + i, 1)));
    }
    cluster.awaitConverged();
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();

    long before = threads.getTotalStartedThreadCount();
    for (int i = 0; i < APPENDS; i++) {
      RaftCluster.append(leader, store(message(TOPIC, "m-" + i, 1)));
    }
    cluster.awaitConverged();
    long started = threads.getTotalStartedThreadCount() - before;

    // Each append reaches two followers: a thread per task started at least one per append.
    assertTrue(started < APPENDS / 4, started + " threads started for " + APPENDS + " appends");
  }
}
