package io.futureq.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.futureq.api.grpc.ClusterInfo;
import io.futureq.api.grpc.LogShardInfo;
import io.futureq.client.ConsumerOptions;
import io.futureq.client.FutureQClient;
import io.futureq.client.FutureQProducer;
import io.futureq.client.OutgoingMessage;
import io.futureq.client.ProducerOptions;
import io.futureq.testing.Await;
import io.futureq.testing.ShardTopics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three nodes, three log shards: one Raft group per shard in each node's one Ratis server, the groups' leaderships
 * one per node (after start, and again after a node returns), every shard's topics served through any node, and a
 * fourth node that joins takes part in every shard's group (added and removed by one admin call each).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class LogShardsClusterE2ETest {
  private static final int SHARDS = 3;
  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir
  Path dir;

  static String topicIn(int shard) {
    return ShardTopics.in(shard, SHARDS, "sharded-");
  }

  /** Each shard's leader as node {@code via} sees it, by shard ("" while none is known). */
  private static List<String> leaders(ClusterNodes cluster, int via) throws Exception {
    try (FutureQClient client = FutureQClient.builder().target(cluster.target(via)).build()) {
      ClusterInfo info = client.clusterInfo().get(10, TimeUnit.SECONDS);
      List<String> leaders = new ArrayList<>();
      for (LogShardInfo shard : info.getRaft().getLogShardsList()) {
        leaders.add(shard.getLeaderId());
      }
      return leaders;
    }
  }

  private static String leadersOrWhy(ClusterNodes cluster, int via) {
    try {
      return leaders(cluster, via).toString();
    } catch (Exception e) {
      return "not read: " + e;
    }
  }

  private static void awaitOneLeadershipPerNode(ClusterNodes cluster, int via, String when) {
    List<List<String>> seen = new ArrayList<>();
    Await.until("each of the three nodes leading one log shard " + when, WAIT, () -> {
      List<String> leaders = leaders(cluster, via);
      seen.add(leaders);
      return leaders.size() == SHARDS && new TreeSet<>(leaders).equals(Set.of("node-1", "node-2", "node-3"));
    }, () -> "leaders by shard: " + (seen.isEmpty() ? "none read" : seen.get(seen.size() - 1)));
  }

  private static void publishAndReceive(FutureQClient client, Set<String> received, String round) throws Exception {
    FutureQProducer producer = client.producer(ProducerOptions.defaults().withLinger(Duration.ofMillis(1)));
    Set<String> sent = new TreeSet<>();
    for (int shard = 0; shard < SHARDS; shard++) {
      for (int i = 0; i < 10; i++) {
        String id = round + "-" + shard + "-" + i;
        producer.send(OutgoingMessage.to(topicIn(shard)).payload(id).key(id).delay(Duration.ofMillis(200)).build())
            .get(30, TimeUnit.SECONDS);
        sent.add(id);
      }
    }
    ClusterTopics.awaitReceived(received, sent, WAIT, round);
  }

  /** Node 4 joins (every shard's group, through one admin call), serves every shard, and leaves them all. */
  private static void joinAndLeave(ClusterNodes cluster) throws Exception {
    cluster.start(3); // futureq.raft.join on: it waits, without voting, until a member adds it
    try (FutureQClient admin = FutureQClient.builder().target(cluster.target(0)).discoveryInterval(Duration.ZERO)
        .build()) {
      admin.addRaftPeer("node-4", cluster.raftAddress(3)).get(120, TimeUnit.SECONDS);
      cluster.awaitAllReady(Duration.ofSeconds(90));
      ClusterInfo info = admin.clusterInfo().get(10, TimeUnit.SECONDS);
      assertEquals(Set.of("node-1", "node-2", "node-3", "node-4"), info.getRaft().getPeersMap().keySet());
      try (FutureQClient viaJoined = FutureQClient.builder().target(cluster.target(3))
          .discoveryInterval(Duration.ZERO).build()) {
        List<LogShardInfo> shards = viaJoined.clusterInfo().get(10, TimeUnit.SECONDS).getRaft().getLogShardsList();
        assertEquals(SHARDS, shards.size(), shards.toString());
        for (LogShardInfo shard : shards) {
          assertEquals(true, shard.getLeaderId().startsWith("node-") && shard.getAppliedIndex() > 0,
              "node-4 follows shard " + shard.getShard() + "'s group and applied it: " + shard);
        }
        Set<String> received = ConcurrentHashMap.newKeySet();
        for (int shard = 0; shard < SHARDS; shard++) {
          viaJoined.subscribe(topicIn(shard), "joined", m -> received.add(new String(m.payload())),
              ConsumerOptions.defaults());
        }
        publishAndReceive(viaJoined, received, "joined");
      }
      // Answered once every shard's group committed the configuration without node-4, shard by shard.
      admin.removeRaftPeer("node-4").get(120, TimeUnit.SECONDS);
      Await.until("node-1 sees node-4 out of the Raft group", WAIT, () -> !admin.clusterInfo()
          .get(10, TimeUnit.SECONDS).getRaft().getPeersMap().containsKey("node-4"));
    }
  }

  /** One cluster for it all (a cluster's start is most of a test's time): three nodes, then a fourth joins. */
  @Test
  void leadershipsSpreadEveryShardServesThroughAnyNodeAndAJoiningNodeTakesPartInEveryShard() throws Exception {
    try (ClusterNodes cluster = new ClusterNodes(dir, 4, 3, Map.of("futureq.cluster.log-shards", SHARDS), false)) {
      cluster.startAll();
      cluster.awaitAllReady(Duration.ofSeconds(90));
      awaitOneLeadershipPerNode(cluster, 0, "after start");
      assertEquals(leaders(cluster, 0), leaders(cluster, 2), "every node sees the same leaders");

      Set<String> received = ConcurrentHashMap.newKeySet();
      FutureQClient.Builder all = FutureQClient.builder();
      for (int i = 0; i < 3; i++) {
        all.target(cluster.target(i));
      }
      try (FutureQClient client = all.build()) {
        for (int shard = 0; shard < SHARDS; shard++) {
          client.subscribe(topicIn(shard), "g", m -> received.add(new String(m.payload())),
              ConsumerOptions.defaults());
        }
        publishAndReceive(client, received, "all-up");

        int stopped = 1;
        cluster.stop(stopped);
        Await.until("every shard led by one of the two nodes left", WAIT, () -> {
          List<String> leaders = leaders(cluster, 0);
          return leaders.stream().allMatch(l -> l.equals("node-1") || l.equals("node-3"));
        }, () -> "leaders: " + leadersOrWhy(cluster, 0));
        publishAndReceive(client, received, "one-down");

        cluster.start(stopped);
        cluster.awaitAllReady(Duration.ofSeconds(90));
        awaitOneLeadershipPerNode(cluster, 0, "after node-2 returned");
        publishAndReceive(client, received, "returned");
      }
      joinAndLeave(cluster);
    }
  }
}
