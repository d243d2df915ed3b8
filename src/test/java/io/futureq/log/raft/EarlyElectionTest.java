package io.futureq.log.raft;

import static io.futureq.log.Commands.message;
import static io.futureq.log.Commands.store;
import static io.futureq.log.raft.RaftCluster.TOPIC;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * With an election timeout of 20 s, the followers of a leader whose server stopped (its port refuses, as a
 * killed process's does) elect a new one long before the timeout: only the peer watch can have started it.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class EarlyElectionTest {
  /**
   * A follower stands after hearing nothing for 20-40 s, and the leader's heartbeats come every 10 s: without the
   * watch, no election starts within 10 s of the leader's stop.
   */
  private static final Duration ELECTION_TIMEOUT = Duration.ofSeconds(20);
  private static final Duration WITHOUT_THE_WATCH = ELECTION_TIMEOUT.dividedBy(2);

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
  void theFollowersOfADeadLeaderElectANewOneWithoutWaitingOutTheElectionTimeout() {
    cluster = RaftCluster.start(dir, 3, ELECTION_TIMEOUT, true, EarlyElectionTest::quickFirstElection);
    RaftNode leader = cluster.awaitLeader();
    RaftCluster.append(leader, store(message(TOPIC, "before", 1)));
    cluster.awaitConverged();

    long stoppedAt = System.nanoTime();
    leader.stop();
    List<RaftNode> survivors = cluster.running();
    RaftNode next = RaftCluster.await("a new leader", () -> survivors.stream()
        .filter(n -> n.status().role() == RaftStatus.Role.LEADER).findFirst().orElse(null));
    Duration took = Duration.ofNanos(System.nanoTime() - stoppedAt);

    assertNotEquals(leader.id(), next.id());
    assertTrue(took.compareTo(WITHOUT_THE_WATCH) < 0, "new leader after " + took.toMillis() + " ms");
    RaftCluster.append(survivors.get(0), store(message(TOPIC, "after", 2)));
    cluster.awaitConverged();
    cluster.assertStoresEqual(2);
  }

  /**
   * A follower's commands go through a Raft client, which learns of a new leader only when a request fails: sent to
   * a dead leader, they waited out a retry pause first. The replica's own news of the election aims the client at
   * the new leader before it sends; and the new leader submits its own commands in-process, to no client at all.
   */
  @Test
  void noCommandOfASurvivorGoesToTheDeadLeader() {
    cluster = RaftCluster.start(dir, 3, ELECTION_TIMEOUT, true, EarlyElectionTest::quickFirstElection);
    RaftNode leader = cluster.awaitLeader();
    for (RaftNode node : cluster.running()) {
      // every follower's client has sent to the leader, so each has it as the leader
      RaftCluster.append(node, store(message(TOPIC, "through-" + node.id(), 1)));
    }
    cluster.awaitConverged();

    Map<String, Long> sentToTheDeadOne = new HashMap<>();
    cluster.running().forEach(n -> sentToTheDeadOne.put(n.id(), n.log().entriesSentTo(leader.id())));
    leader.stop();
    List<RaftNode> survivors = cluster.running();
    RaftNode next = RaftCluster.await("a new leader", () -> survivors.stream()
        .filter(n -> n.status().role() == RaftStatus.Role.LEADER).findFirst().orElse(null));
    RaftNode follower = survivors.stream().filter(n -> n != next).findFirst().orElseThrow();
    RaftCluster.await("the follower knows the new leader",
        () -> next.id().equals(follower.status().leaderId()) ? true : null);
    long fromTheLeaderItself = next.log().entriesSentTo(next.id());
    long fromTheFollower = follower.log().entriesSentTo(next.id());
    RaftCluster.append(next, store(message(TOPIC, "after", 2)));
    RaftCluster.append(follower, store(message(TOPIC, "after-follower", 2)));
    cluster.awaitConverged();

    for (RaftNode survivor : survivors) {
      assertEquals(sentToTheDeadOne.get(survivor.id()), survivor.log().entriesSentTo(leader.id()),
          "commands of " + survivor.id() + " were sent to the dead leader first");
    }
    assertEquals(fromTheLeaderItself + 1, next.log().entriesSentTo(next.id()), "the new leader submits in-process");
    assertEquals(fromTheFollower + 1, follower.log().entriesSentTo(next.id()));
  }

  /**
   * The group's first election comes within two seconds (spread, so that the three rarely split the vote); the
   * election timeout governs only the later ones.
   */
  private static void quickFirstElection(RaftProperties properties) {
    RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMin(properties, TimeDuration.valueOf(200, TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMax(properties, TimeDuration.valueOf(2, TimeUnit.SECONDS));
  }
}
