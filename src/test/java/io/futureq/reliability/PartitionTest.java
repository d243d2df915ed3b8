package io.futureq.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.api.grpc.RaftInfo;
import io.futureq.client.FutureQClient;
import io.futureq.testing.Await;
import io.futureq.testing.Solo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three broker processes, each in its own network namespace ({@link Netns}), joined by a bridge.
 * Under the crash-loop workload (QUORUM publishes, two acking groups, a universal subscriber), the
 * Raft leader is cut off from everyone for 5 s (its veth taken down: long enough for the others to
 * elect a new leader and for its lease to lapse; the failure detector marks it unreachable after 3-6 s,
 * and the split-brain resolver would down it after 7 s more, counting the seconds its connections take
 * to come back after the heal: an 8 s cut got it downed), then healed. No split brain: nothing acked is lost, nothing
 * acked and deleted is delivered again, nothing is early, and the three replicas' stores are
 * identical once caught up. Skips where namespaces cannot be made (not root, no {@code ip}).
 */
@Timeout(value = 420, unit = TimeUnit.SECONDS)
@Solo
class PartitionTest {
  /** Each node is alone in its namespace, so all three use the same ports (from this worktree's range). */
  private static final ClusterMember.Ports PORTS = new ClusterMember.Ports(23000, 23001, 23002, 23003);
  private static final long CUT_MS = 5000;

  @TempDir
  Path dir;

  @Test
  void aLeaderCutOffAndHealedLosesNothingAckedAndTheReplicasEndIdentical() throws Exception {
    String why = Netns.unavailable();
    Assumptions.assumeTrue(why == null, "network namespaces unavailable, partition test skipped: " + why);
    long begin = System.currentTimeMillis();
    List<String> journal = new ArrayList<>();
    // -Dpartition.seed=S replays a run's workload (scripts/soak.sh replays those that found faults).
    Workload workload = new Workload(new Workload.Options(Long.getLong("partition.seed", System.nanoTime()), 50, 3000,
        ClusterCrashLoop.IN_FLIGHT_TIMEOUT_MS, Workload.topicsInShards(ClusterCrashLoop.LOG_SHARDS)), line -> {
          System.out.println("[partition] " + line);
          journal.add(line);
        });
    Map<String, Long> violations = new LinkedHashMap<>();
    List<String> notes = new ArrayList<>();
    List<ClusterMember> nodes = List.of();
    try (Netns net = Netns.create()) {
      String[] hosts = new String[Netns.NODES];
      ClusterMember.Ports[] ports = new ClusterMember.Ports[Netns.NODES];
      List<List<String>> prefixes = new ArrayList<>();
      for (int i = 0; i < Netns.NODES; i++) {
        hosts[i] = Netns.host(i);
        ports[i] = PORTS;
        prefixes.add(Netns.exec(i));
      }
      nodes = ClusterMember.create(dir, hosts, ports, ClusterCrashLoop.EXTRA_CONFIG, prefixes);
      for (ClusterMember n : nodes) {
        n.launch();
      }
      for (ClusterMember n : nodes) {
        n.awaitReady(Duration.ofSeconds(120));
      }
      FutureQClient.Builder builder = FutureQClient.builder().requestTimeout(Duration.ofSeconds(10));
      FutureQClient.Builder adminBuilder = FutureQClient.builder();
      nodes.forEach(n -> {
        builder.target(n.grpcTarget());
        adminBuilder.target(n.grpcTarget());
      });
      try (FutureQClient client = builder.build(); FutureQClient admin = adminBuilder.build()) {
        workload.start(client, admin);
        long readyAt = System.currentTimeMillis();
        CrashLoop.awaitFirstAnswer(workload, readyAt);
        Thread.sleep(3000); // a sleep: 3 s of load through the whole cluster before the cut
        int leader = leaderOf(nodes);
        Map<String, String> topicHosts = ClusterCrashLoop.topicHosts(admin, workload.topics());
        notes.add("the topics were hosted by " + topicHosts + " before the cut");
        long answeredBefore = workload.answered();
        long cutAt = System.currentTimeMillis();
        net.cut(leader);
        Thread.sleep(CUT_MS); // a sleep: how long the leader stays cut off is the disruption
        long answeredDuring = workload.answered() - answeredBefore;
        net.heal(leader);
        for (ClusterMember n : nodes) {
          n.awaitReady(Duration.ofSeconds(120));
        }
        long healedAt = System.currentTimeMillis();
        // A cut node that does not host a topic still holds what it relays to the consumers connected to it.
        Set<String> spared = new TreeSet<>();
        String cutNode = nodes.get(leader).nodeId;
        topicHosts.forEach((topic, host) -> {
          if (!host.isEmpty() && !host.equals(cutNode)) {
            spared.add(topic);
          }
        });
        workload.disrupted(new Workload.Disruption("cut " + nodes.get(leader).nodeId + " (leader)", cutAt,
            cutAt + Workload.TRANSIT_MS, healedAt, spared));
        notes.add("cut the leader " + nodes.get(leader).nodeId + " for " + CUT_MS + " ms; " + answeredDuring
            + " publishes answered while it was cut; all ready " + (healedAt - cutAt) + " ms after the cut");
        CrashLoop.awaitFirstAnswer(workload, healedAt);
        Thread.sleep(3000); // a sleep: 3 s of load through the healed cluster
        workload.finish(admin);
      }
      ClusterCrashLoop.compareReplicas(nodes, violations, notes);
    } finally {
      workload.stop();
      nodes.forEach(ClusterMember::close);
      workload.dump(dir);
      Files.write(dir.resolve("partition.journal"), journal);
    }
    Workload.Report report = workload.analyze("partition", 1, begin, Workload.brokerLogSummary(dir), notes,
        violations);
    String figures = report.format();
    System.out.print(figures);
    assertTrue(report.drained(), figures);
    assertEquals(Map.of(), report.broken(), figures);
    assertTrue(report.ok(), figures);
  }

  /** The node that says it is the Raft leader; asks for up to 60 s (an election may be under way). */
  private static int leaderOf(List<ClusterMember> nodes) {
    List<String> seen = new ArrayList<>();
    return Await.value("a node that says it is the Raft leader", Duration.ofSeconds(60), () -> {
      seen.clear();
      for (ClusterMember n : nodes) {
        RaftInfo info = n.raft();
        if (info != null && info.getRole().equals("LEADER")) {
          return n.index;
        }
        seen.add(n.nodeId + ": " + (info == null ? n.lastRaftError : info.getRole()));
      }
      return null;
    }, () -> "the nodes say: " + seen);
  }
}
