package io.futureq.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.futureq.api.grpc.LogShardInfo;
import io.futureq.api.grpc.TopicSummary;
import io.futureq.client.ConsumerOptions;
import io.futureq.client.FutureQClient;
import io.futureq.client.FutureQException;
import io.futureq.client.FutureQProducer;
import io.futureq.client.OutgoingMessage;
import io.futureq.client.ProducerOptions;
import io.futureq.log.ShardPlacement;
import io.futureq.storage.OrderedStore;
import io.futureq.testing.Await;
import io.futureq.testing.ShardTopics;
import io.grpc.Status;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Five nodes, five log shards, replication factor 3: each node holds the three shards the placement gives it (and
 * no store of the others), leads the one it is preferred for, and serves every topic all the same: publishes,
 * subscriptions, browsing, listing, cancels, cluster info and the console's reads of topics whose shard it does not
 * hold go to a node that holds it. A node that stops has its shard led by another of the shard's nodes meanwhile,
 * and leads it again once back.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ShardPlacementClusterE2ETest {
  private static final int NODES = 5;
  private static final int SHARDS = 5;
  private static final int FACTOR = 3;
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http = HttpClient.newHttpClient();

  @TempDir
  Path dir;

  private static String topicIn(int shard) {
    return ShardTopics.in(shard, SHARDS, "placed-");
  }

  private static String node(int i) {
    return "node-" + (i + 1);
  }

  private static FutureQClient only(ClusterNodes cluster, int i) {
    return FutureQClient.builder().target(cluster.target(i)).discoveryInterval(Duration.ZERO).build();
  }

  /** Each shard's leader, as the nodes holding it report it. */
  private static Map<Integer, String> leaders(ClusterNodes cluster) throws Exception {
    Map<Integer, String> leaders = new TreeMap<>();
    for (int i = 0; i < NODES; i++) {
      if (cluster.nodes[i] == null) {
        continue; // stopped
      }
      try (FutureQClient client = only(cluster, i)) {
        for (LogShardInfo shard : client.clusterInfo().get(10, TimeUnit.SECONDS).getRaft().getLogShardsList()) {
          if (!shard.getLeaderId().isEmpty()) {
            leaders.put(shard.getShard(), shard.getLeaderId());
          }
        }
      }
    }
    return leaders;
  }

  @Test
  void eachNodeHoldsItsThreeShardsLeadsOneServesEveryTopicAndLeadsAgainAfterAStop() throws Exception {
    ShardPlacement placement = ShardPlacement.of(List.of("node-1", "node-2", "node-3", "node-4", "node-5"), SHARDS,
        FACTOR);
    try (ClusterNodes cluster = new ClusterNodes(dir, NODES, Map.of("futureq.cluster.log-shards", SHARDS,
        "futureq.cluster.replication-factor", FACTOR, "futureq.console.enabled", true), false)) {
      cluster.startAll();
      cluster.awaitAllReady(Duration.ofSeconds(120));

      for (int i = 0; i < NODES; i++) {
        for (int shard = 0; shard < SHARDS; shard++) {
          OrderedStore store = cluster.nodes[i].stores().get(shard);
          if (placement.replicas(shard).contains(node(i))) {
            assertNotNull(store, node(i) + " holds shard " + shard);
          } else {
            assertNull(store, node(i) + " holds no replica of shard " + shard);
          }
        }
      }
      awaitPreferredLeaders(cluster, placement, "after start");

      // Through each node alone: its own shards and the two it does not hold.
      for (int i = 0; i < NODES; i++) {
        publishAndReceiveThrough(cluster, i, "all-up");
      }

      try (FutureQClient viaOne = only(cluster, 0)) {
        // node-1 holds shards 0, 3 and 4: the listing gathers shards 1 and 2 from their nodes.
        Set<String> listed = new TreeSet<>();
        for (TopicSummary topic : viaOne.listTopics().get(30, TimeUnit.SECONDS).getTopicsList()) {
          listed.add(topic.getName());
        }
        for (int shard = 0; shard < SHARDS; shard++) {
          assertTrue(listed.contains(topicIn(shard)), "listed through node-1: " + topicIn(shard) + " in " + listed);
        }
        List<LogShardInfo> described = viaOne.clusterInfo().get(10, TimeUnit.SECONDS).getRaft().getLogShardsList();
        assertEquals(SHARDS, described.size(), described.toString());
        assertEquals("NOT_HELD", described.get(1).getRole(), described.toString());
        assertEquals("node-2", described.get(1).getLeaderId(), described.toString());
        for (LogShardInfo shard : described) {
          assertEquals(new TreeSet<>(placement.replicas(shard.getShard())), new TreeSet<>(shard.getPeersMap().keySet()),
              "the voters of log shard " + shard.getShard() + " as described through node-1");
        }
        int elsewhere = 1;
        assertTrue(!placement.replicas(elsewhere).contains("node-1"));
        // A topic of its own: the others keep the messages of the groups that came and went above.
        String topic = ShardTopics.in(elsewhere, SHARDS, "browsed-");
        FutureQProducer producer = viaOne.producer(ProducerOptions.defaults());
        producer.send(OutgoingMessage.to(topic).payload("later").key("later").delay(Duration.ofHours(1)).build())
            .get(30, TimeUnit.SECONDS);
        assertEquals("later", viaOne.getMessageByKey(topic, "later", true).get(30, TimeUnit.SECONDS).getPayload()
            .toStringUtf8(), "browsed through a node without the shard");
        assertEquals(1, viaOne.topicStats(topic).get(30, TimeUnit.SECONDS).getPending());
        consoleReadsTopicsNodeOneDoesNotHold(cluster, topic, placement);
        assertTrue(viaOne.cancelByKey(topic, "later").get(30, TimeUnit.SECONDS).getExisted());
        assertEquals(0, viaOne.topicStats(topic).get(30, TimeUnit.SECONDS).getPending());

        // A refusal on the node holding the shard reaches the caller as it was made there.
        String unknown = ShardTopics.in(elsewhere, SHARDS, "never-published-");
        ExecutionException missing = assertThrows(ExecutionException.class,
            () -> viaOne.topicStats(unknown).get(30, TimeUnit.SECONDS));
        FutureQException notFound = (FutureQException) missing.getCause();
        assertEquals(Status.Code.NOT_FOUND, notFound.code(), notFound.toString());
        assertTrue(notFound.getMessage().contains(unknown), notFound.getMessage());

        // Adding a node that is not running moves nothing: its first step, taking up a replica there, fails.
        ExecutionException refused = assertThrows(ExecutionException.class,
            () -> viaOne.addRaftPeer("node-6", "127.0.0.1:1").get(60, TimeUnit.SECONDS));
        assertTrue(refused.getCause().getMessage().contains("node-6"), refused.getCause().getMessage());
      }

      // node-1 stops: shard 0, which it led, is led by another of its nodes; every topic is still served through
      // node-4, which holds neither shard 0 nor shard 4; node-1 returns and leads shard 0 again.
      cluster.stop(0);
      Await.until("shard 0 led by node-2 or node-3", WAIT, () -> Set.of("node-2", "node-3")
          .contains(leaders(cluster).get(0)));
      publishAndReceiveThrough(cluster, 3, "node-1-down");
      cluster.start(0);
      cluster.awaitAllReady(Duration.ofSeconds(120));
      awaitPreferredLeaders(cluster, placement, "after node-1 returned");
      publishAndReceiveThrough(cluster, 0, "node-1-back");
    }
  }

  private static void awaitPreferredLeaders(ClusterNodes cluster, ShardPlacement placement, String when) {
    List<Map<Integer, String>> seen = new ArrayList<>();
    Await.until("each shard led by the first node of its placement " + when, WAIT, () -> {
      Map<Integer, String> leaders = leaders(cluster);
      seen.add(leaders);
      for (int shard = 0; shard < SHARDS; shard++) {
        if (!placement.replicas(shard).get(0).equals(leaders.get(shard))) {
          return false;
        }
      }
      return true;
    }, () -> "leaders by shard: " + (seen.isEmpty() ? "none read" : seen.get(seen.size() - 1)));
  }

  /** Node 1's console shows a topic of a shard it does not hold, and every shard's leader. */
  private void consoleReadsTopicsNodeOneDoesNotHold(ClusterNodes cluster, String topic, ShardPlacement placement)
      throws Exception {
    JsonNode timeline = JSON.readTree(get(cluster, 0, "/api/timeline?span=hour&topic=" + topic));
    assertEquals(1, timeline.get("pending").asLong(), timeline.toString());
    JsonNode stats = JSON.readTree(get(cluster, 0, "/api/topics/" + topic));
    assertEquals(1, stats.get("pending").asLong(), stats.toString());
    assertEquals(0, stats.get("deadLetters").asLong(), stats.toString());
    JsonNode listed = JSON.readTree(get(cluster, 0, "/api/topics"));
    assertEquals(true, listed.get("topics").toString().contains(topic), listed.toString());
    JsonNode shards = JSON.readTree(get(cluster, 0, "/api/overview")).get("raft").get("logShards");
    assertEquals(SHARDS, shards.size(), shards.toString());
    for (int shard = 0; shard < SHARDS; shard++) {
      assertEquals(placement.replicas(shard).get(0), shards.get(shard).get("leaderId").asText(), shards.toString());
    }
  }

  private String get(ClusterNodes cluster, int node, String path) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
        + cluster.consolePorts[node] + path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), path + ": " + r.body());
    return r.body();
  }

  /**
   * Publishes 5 messages to each shard's topic through node {@code i} alone, and receives them through it, in a group
   * of the round's own.
   */
  private static void publishAndReceiveThrough(ClusterNodes cluster, int i, String round) throws Exception {
    Set<String> received = ConcurrentHashMap.newKeySet();
    Set<String> sent = new TreeSet<>();
    try (FutureQClient client = only(cluster, i)) {
      for (int shard = 0; shard < SHARDS; shard++) {
        client.subscribe(topicIn(shard), round + "-via-" + node(i), m -> received.add(new String(m.payload())),
            ConsumerOptions.defaults());
      }
      FutureQProducer producer = client.producer(ProducerOptions.defaults().withLinger(Duration.ofMillis(1)));
      for (int shard = 0; shard < SHARDS; shard++) {
        for (int k = 0; k < 5; k++) {
          String id = round + "-" + node(i) + "-" + shard + "-" + k;
          producer.send(OutgoingMessage.to(topicIn(shard)).payload(id).key(id).delay(Duration.ofMillis(200))
              .build()).get(30, TimeUnit.SECONDS);
          sent.add(id);
        }
      }
      ClusterTopics.awaitReceived(received, sent, WAIT, round + " through " + node(i));
    }
  }
}
