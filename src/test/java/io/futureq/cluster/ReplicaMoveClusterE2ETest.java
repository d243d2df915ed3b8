package io.futureq.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.api.grpc.LogShardInfo;
import io.futureq.api.grpc.RaftInfo;
import io.futureq.client.ConsumerOptions;
import io.futureq.client.FutureQClient;
import io.futureq.client.FutureQException;
import io.futureq.client.FutureQProducer;
import io.futureq.client.OutgoingMessage;
import io.futureq.client.ProducerOptions;
import io.futureq.testing.Await;
import io.futureq.testing.ShardTopics;
import io.grpc.Status;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.StreamSupport;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Four nodes, four log shards, replication factor 3 (each node holds three shards), then a fifth node is added
 * through the admin API: replicas move to it while the cluster runs, until no node holds two more than another. What
 * was published before is there afterwards, on the new node's replicas too; every shard still lives on three nodes;
 * the nodes that gave a replica up keep no store of it; and every topic is served through the new node. Then node-1
 * is removed: its replicas move to the other four first, and it can stop with nothing lost. A change asked of two
 * nodes at once runs once.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ReplicaMoveClusterE2ETest {
  private static final int SHARDS = 4;
  private static final int FACTOR = 3;
  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir
  Path dir;

  private static String topicIn(int shard) {
    return ShardTopics.in(shard, SHARDS, "moved-");
  }

  private static FutureQClient only(ClusterNodes cluster, int i) {
    return FutureQClient.builder().target(cluster.target(i)).discoveryInterval(Duration.ZERO).build();
  }

  @Test
  void aNodeAddedTakesItsShareOfReplicasWithTheirMessagesAndEveryShardStaysOnThreeNodes() throws Exception {
    try (ClusterNodes cluster = new ClusterNodes(dir, 5, 4, Map.of("futureq.cluster.log-shards", SHARDS,
        "futureq.cluster.replication-factor", FACTOR), false)) {
      cluster.startAll();
      cluster.awaitAllReady(Duration.ofSeconds(120));
      try (FutureQClient viaOne = only(cluster, 0)) {
        FutureQProducer producer = viaOne.producer(ProducerOptions.defaults().withLinger(Duration.ofMillis(1)));
        for (int shard = 0; shard < SHARDS; shard++) {
          for (int k = 0; k < 10; k++) {
            producer.send(OutgoingMessage.to(topicIn(shard)).payload("before-" + k).key("before-" + k)
                .delay(Duration.ofHours(1)).build()).get(30, TimeUnit.SECONDS);
          }
        }

        cluster.start(4); // futureq.raft.join on: it waits until a member adds it
        for (int i = 0; i < 2; i++) {
          Cluster seen = Cluster.get(cluster.nodes[i].system());
          Await.until("node-5 an Up member as node-" + (i + 1) + " sees it", WAIT, () -> StreamSupport.stream(
              seen.state().getMembers().spliterator(), false).anyMatch(m -> m.hasRole("futureq-node-node-5")
              && m.status() == MemberStatus.up()));
        }
        // Asked of two nodes at once, the change runs once and the other request is refused: both planned from the
        // same groups would move the same replicas twice (before, each node ran the change it was asked for).
        try (FutureQClient viaTwo = only(cluster, 1)) {
          List<CompletableFuture<RaftInfo>> asked = List.of(viaOne.addRaftPeer("node-5", cluster.raftAddress(4)),
              viaTwo.addRaftPeer("node-5", cluster.raftAddress(4)));
          List<FutureQException> refused = new ArrayList<>();
          List<RaftInfo> answered = new ArrayList<>();
          for (CompletableFuture<RaftInfo> answer : asked) {
            try {
              answered.add(answer.get(240, TimeUnit.SECONDS));
            } catch (ExecutionException e) {
              refused.add((FutureQException) e.getCause());
            }
          }
          assertEquals(1, refused.size(), "refused: " + refused);
          assertEquals(Status.Code.FAILED_PRECONDITION, refused.get(0).code(), refused.get(0).toString());
          assertTrue(refused.get(0).getMessage().contains("a membership change is under way (adding node-5"),
              refused.get(0).getMessage());
          // The answer (what `cluster join` prints) describes every shard's voters, those not held where it ran too;
          // as that node sees them (a follower learns a change an append later), so their final count is awaited.
          List<LogShardInfo> shards = answered.get(0).getLogShardsList();
          assertEquals(SHARDS, shards.size(), shards.toString());
          assertTrue(shards.stream().allMatch(shard -> shard.getPeersCount() > 0), shards.toString());
          Await.until("every shard on three voters, node-5 among those of two", WAIT, () -> {
            List<LogShardInfo> now = viaTwo.clusterInfo().get(10, TimeUnit.SECONDS).getRaft().getLogShardsList();
            return now.size() == SHARDS && now.stream().allMatch(shard -> shard.getPeersCount() == 3)
                && now.stream().filter(shard -> shard.getPeersMap().containsKey("node-5")).count() == 2;
          });
        }
        cluster.awaitAllReady(Duration.ofSeconds(120));
      }

      // 12 replicas over 5 nodes: three nodes hold 2, two hold 3, and node-5 took 2 of them.
      List<Integer> held = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        held.add((int) cluster.nodes[i].stores().stream().filter(s -> s != null).count());
      }
      assertEquals(12, held.stream().mapToInt(Integer::intValue).sum(), "replicas by node " + held);
      assertEquals(2, held.get(4), "replicas by node " + held);
      assertTrue(held.stream().allMatch(n -> n == 2 || n == 3), "replicas by node " + held);
      assertEachShardOnThreeNodes(cluster, 5);

      try (FutureQClient viaFive = only(cluster, 4)) {
        for (int shard = 0; shard < SHARDS; shard++) {
          assertEquals(10, viaFive.topicStats(topicIn(shard)).get(30, TimeUnit.SECONDS).getPending(),
              "pending of shard " + shard + "'s topic through node-5");
        }
        Set<String> received = ConcurrentHashMap.newKeySet();
        Set<String> sent = new TreeSet<>();
        for (int shard = 0; shard < SHARDS; shard++) {
          viaFive.subscribe(topicIn(shard), "after-move", m -> received.add(new String(m.payload())),
              ConsumerOptions.defaults());
        }
        FutureQProducer producer = viaFive.producer(ProducerOptions.defaults().withLinger(Duration.ofMillis(1)));
        for (int shard = 0; shard < SHARDS; shard++) {
          for (int k = 0; k < 5; k++) {
            String id = "after-" + shard + "-" + k;
            producer.send(OutgoingMessage.to(topicIn(shard)).payload(id).key(id).delay(Duration.ofMillis(200))
                .build()).get(30, TimeUnit.SECONDS);
            sent.add(id);
          }
        }
        ClusterTopics.awaitReceived(received, sent, WAIT, "published and received through node-5");

        // node-1 leaves: its replicas move to the other four first, then it holds none and can stop.
        viaFive.removeRaftPeer("node-1").get(240, TimeUnit.SECONDS);
        assertTrue(cluster.nodes[0].stores().stream().allMatch(store -> store == null),
            "node-1 still holds " + cluster.nodes[0].stores());
        assertEachShardOnThreeNodes(cluster, 5);
        cluster.stop(0);
        for (int shard = 0; shard < SHARDS; shard++) {
          assertEquals(10, viaFive.topicStats(topicIn(shard)).get(30, TimeUnit.SECONDS).getPending(),
              "pending of shard " + shard + "'s topic after node-1 left");
        }
      }
    }
  }

  /**
   * Every shard held by exactly three of the first {@code nodes} running nodes, no node more than one replica ahead
   * of another, and no node keeping the store directory of a shard it gave up.
   */
  private static void assertEachShardOnThreeNodes(ClusterNodes cluster, int nodes) {
    List<Integer> held = new ArrayList<>();
    for (int shard = 0; shard < SHARDS; shard++) {
      int holders = 0;
      for (int i = 0; i < nodes; i++) {
        if (cluster.nodes[i] == null) {
          continue;
        }
        Path shardDir = cluster.dataDir(i).resolve("shard-" + shard);
        if (cluster.nodes[i].stores().get(shard) != null) {
          holders++;
        } else if (shard > 0) {
          assertFalse(Files.exists(shardDir), "node-" + (i + 1) + " gave up shard " + shard + ", kept " + shardDir);
        }
      }
      assertEquals(FACTOR, holders, "nodes holding shard " + shard);
    }
    for (int i = 0; i < nodes; i++) {
      if (cluster.nodes[i] != null) {
        held.add((int) cluster.nodes[i].stores().stream().filter(s -> s != null).count());
      }
    }
    int most = held.stream().mapToInt(Integer::intValue).max().orElse(0);
    int least = held.stream().filter(n -> n > 0).mapToInt(Integer::intValue).min().orElse(0);
    assertTrue(most - least <= 1, "replicas by node " + held);
  }
}
