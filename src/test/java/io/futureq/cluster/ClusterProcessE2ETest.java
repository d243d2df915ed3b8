package io.futureq.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.client.FutureQClient;
import io.futureq.client.FutureQProducer;
import io.futureq.client.OutgoingMessage;
import io.futureq.client.ProducerOptions;
import io.futureq.testing.Await;
import io.futureq.testing.Solo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three brokers as real processes started through bin/futureq, under publishes through every node
 * and a consumer of every topic: the Raft leader is killed with SIGKILL (an election, and the producer
 * whose first target it was has to move on by itself), started again, and then a follower is killed.
 * Repeated kills are measured by scripts/failover-bench.sh; pauses (SIGSTOP) are crash-tested by
 * ClusterCrashLoopTest. The bounds are generous (the goals, two seconds to publish and five to deliver
 * again, are measured by the bench); what must hold exactly is that nothing acknowledged at QUORUM is lost.
 */
@Timeout(value = 480, unit = TimeUnit.SECONDS)
@Solo
class ClusterProcessE2ETest {
  private static final Duration PUBLISH_BOUND = Duration.ofSeconds(20);
  private static final Duration DELIVERY_BOUND = Duration.ofSeconds(30);
  /**
   * A killed node is downed once its Raft port refuses connections (about 2 s as GetClusterInfo shows it).
   * The failure detector and the split-brain resolver alone take at least their 3 s pause and 7 s stable-after.
   */
  private static final Duration DOWN_BOUND = Duration.ofSeconds(8);
  private static final Duration CLUSTER_INFO_BOUND = Duration.ofSeconds(8);

  @TempDir
  Path dir;

  @Test
  void killingTheLeaderThenAFollowerLosesNoMessageAckedAtQuorumAndEveryoneResumes() throws Exception {
    // FutureQ's own failure-detector and split-brain settings (conf/futureq.conf); scripts/failover-bench.sh
    // measures the same probe over many kills.
    // Kamon's figures refreshed every second rather than every 5 s, so the published count shows sooner; the probe
    // publishes every 100 ms rather than every 20 ms (the bench's load), which leaves the restarted node the CPU to
    // start in about half the time: this test is about what survives, the bench about how fast.
    try (ClusterProcesses nodes = new ClusterProcesses(dir, List.of("futureq.metrics.enabled = true",
        "kamon.metric.tick-interval = 1s")).startAll();
        FailoverProbe probe = new FailoverProbe(nodes, 100).start()) {
      int leader = nodes.leader(0);
      assertTrue(leader >= 0, "no Raft leader after start-up");
      publishedIsCountedOnceInTheCluster(nodes);
      Thread.sleep(1000); // a sleep: a second of the probe's steady load before the kill
      FailoverProbe.Stages leaderKill = probe.killAndMeasure(leader, DELIVERY_BOUND.multipliedBy(2), true);
      System.out.println(leaderKill);
      assertTrue(leaderKill.wasLeader(), "the node killed was no longer the Raft leader: " + leaderKill);
      assertTrue(leaderKill.leaderElected() >= 0, "no new Raft leader: " + leaderKill);
      assertResumed(leaderKill);

      int newLeader = nodes.leader((leader + 1) % ClusterProcesses.SIZE);
      int follower = (newLeader + 1) % ClusterProcesses.SIZE;
      FailoverProbe.Stages followerKill = probe.killAndMeasure(follower, DELIVERY_BOUND.multipliedBy(2), false);
      System.out.println(followerKill);
      assertTrue(!followerKill.wasLeader(), "the follower killed was the Raft leader: " + followerKill);
      assertResumed(followerKill);

      // The Raft gauges of the new leader's node: it leads, and it saw the leader change.
      Await.value("futureq_raft_leader{shard=\"0\"} 1.0 and a leader change in node " + newLeader + "'s scrape",
          Duration.ofSeconds(30), () -> {
            String scrape = nodes.scrape(newLeader);
            return scrape != null && scrape.contains("futureq_raft_leader{shard=\"0\"} 1.0")
                && Pattern.compile("(?m)^futureq_raft_leader_changes\\{shard=\"0\"} [1-9]").matcher(scrape).find()
                && Pattern.compile("(?m)^futureq_raft_term\\{shard=\"0\"} [1-9]").matcher(scrape).find()
                ? scrape : null;
          }, () -> "last scrape:\n" + nodes.scrape(newLeader));

      Set<String> lost = probe.stopAndFindLost(Duration.ofSeconds(60));
      assertTrue(lost.isEmpty(), "acknowledged at QUORUM but never delivered: " + lost);
      assertTrue(probe.ackedCount() > 100, "only " + probe.ackedCount() + " publishes were acknowledged");
    }
  }

  /**
   * Every replica applies every message; the cluster's {@code futureq_published_total} summed over its nodes
   * (as a dashboard does) counts each once. It counted each once per replica before.
   */
  private static void publishedIsCountedOnceInTheCluster(ClusterProcesses nodes) throws Exception {
    int count = 200;
    try (FutureQClient client = nodes.client(1);
        FutureQProducer producer = client.producer(ProducerOptions.defaults())) {
      List<CompletableFuture<?>> acks = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        acks.add(producer.send(OutgoingMessage.to("counted").payload(new byte[10]).delay(Duration.ofHours(1)).build())
            .toCompletableFuture());
      }
      CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    }
    // Prometheus sees Kamon's figures as of its last tick (1 s here): wait for the count to show, then two ticks
    // more for any replica that counted too.
    Await.until("futureq_published_total of counted to show " + count, Duration.ofSeconds(30),
        () -> nodes.publishedCount("counted"), published -> published >= count);
    Thread.sleep(2_000); // a sleep: two more ticks, for a replica that counted too to show; no event marks it
    assertEquals(count, nodes.publishedCount("counted"), "futureq_published_total summed over the nodes");
  }

  private static void assertResumed(FailoverProbe.Stages stages) {
    long worst = stages.worstSurvivorPublish();
    assertTrue(worst <= PUBLISH_BOUND.toMillis(), "publishing through the survivors did not resume within "
        + PUBLISH_BOUND + ": " + stages);
    assertTrue(stages.deadNodeProducerResumed() >= 0, "the dead node's producer never moved on: " + stages);
    assertTrue(stages.memberDown() >= 0 && stages.memberDown() <= DOWN_BOUND.toMillis(),
        "the dead member was not downed within " + DOWN_BOUND + ": " + stages);
    assertTrue(stages.consumersReceive() >= 0 && stages.consumersReceive() <= DELIVERY_BOUND.toMillis(),
        "the dead node's topics did not deliver again within " + DELIVERY_BOUND + ": " + stages);
    // A survivor asked who is in the cluster answers while a member is dead (it used to wait for the
    // dead member's answer for the whole request timeout, 10 s, and so did every client discovering
    // the cluster through it).
    assertTrue(stages.slowestClusterInfo() < CLUSTER_INFO_BOUND.toMillis(), "GetClusterInfo took "
        + stages.slowestClusterInfo() + " ms during the failover: " + stages);
  }
}
