package io.futureq.log.raft;

import io.futureq.log.EventLog;
import io.futureq.storage.OrderedStore;
import java.nio.file.Path;

/**
 * A three-replica Raft group in this JVM, for tests outside this package that need one follower's log and store
 * (what a client of a non-leader node writes through and reads from).
 */
public final class RaftFollowerFixture implements AutoCloseable {
  private final RaftCluster cluster;
  private final RaftNode follower;

  private RaftFollowerFixture(RaftCluster cluster, RaftNode follower) {
    this.cluster = cluster;
    this.follower = follower;
  }

  /** Starts the group under {@code root} and waits for a leader. */
  public static RaftFollowerFixture start(Path root) {
    RaftCluster cluster = RaftCluster.start(root, 3, 1_000_000, 64L << 20);
    try {
      RaftNode leader = cluster.awaitLeader();
      RaftNode follower = cluster.running().stream().filter(n -> n != leader).findFirst().orElseThrow();
      return new RaftFollowerFixture(cluster, follower);
    } catch (RuntimeException | AssertionError e) {
      cluster.close();
      throw e;
    }
  }

  public EventLog followerLog() {
    return follower.log();
  }

  public OrderedStore followerStore() {
    return follower.store();
  }

  /** Stops the follower (its log and store close) as a clean shutdown does. */
  public void stopFollower() {
    follower.stop();
  }

  /** Stops the follower and starts it again on the same directories. */
  public void restartFollower() {
    follower.stop();
    follower.start();
  }

  @Override
  public void close() {
    cluster.close();
  }
}
