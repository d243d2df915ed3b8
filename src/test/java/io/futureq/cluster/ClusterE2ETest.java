package io.futureq.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.api.grpc.ClusterInfo;
import io.futureq.api.grpc.Member;
import io.futureq.client.ConsumerOptions;
import io.futureq.client.FutureQClient;
import io.futureq.client.FutureQProducer;
import io.futureq.client.OutgoingMessage;
import io.futureq.client.ProducerOptions;
import io.futureq.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Three clustered nodes in one JVM: any node serves, and a leader's loss loses nothing acked. */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ClusterE2ETest {
  @TempDir
  Path dir;

  @Test
  void anyNodeServesAndTheLeadersLossLosesNoAckedMessage() throws Exception {
    try (ClusterNodes cluster = new ClusterNodes(dir, 3)) {
      cluster.startAll();
      cluster.awaitAllReady(Duration.ofSeconds(90));
      try (FutureQClient viaFirst = FutureQClient.builder().target(cluster.target(0)).build()) {
        // Asked as soon as every node is ready, a node names every member's gRPC address (it used to learn
        // them through the receptionist, by gossip, seconds later: a client discovering the cluster then
        // knew only its seed).
        ClusterInfo info = viaFirst.clusterInfo().get(10, TimeUnit.SECONDS);
        assertEquals("cluster", info.getMode());
        assertEquals(3, info.getMembersCount());
        assertFalse(info.getRaft().getLeaderId().isEmpty());
        assertEquals(3, info.getRaft().getPeersCount());
        info.getMembersList().forEach(m -> assertFalse(m.getGrpcAddress().isEmpty(), m.toString()));
      }
      int leader = ClusterTopics.raftLeader(cluster);
      int consumeVia = (leader + 2) % 3;
      Set<String> acked = ConcurrentHashMap.newKeySet();
      Set<String> received = ConcurrentHashMap.newKeySet();
      // The producer is given the leader's address only: it fails over to members it learned of.
      try (FutureQClient producerClient = FutureQClient.builder().target(cluster.target(leader))
              .discoveryInterval(Duration.ofMillis(500)).build();
          FutureQClient consumerClient = FutureQClient.builder().target(cluster.target(consumeVia)).build()) {
        Set<String> members = Set.of(cluster.target(0), cluster.target(1), cluster.target(2));
        Await.until("the producer's client to learn every member from GetClusterInfo", Duration.ofSeconds(20),
            () -> producerClient.targets().containsAll(members), () -> "it knows " + producerClient.targets());
        assertEquals(members, Set.copyOf(producerClient.targets()), "learned from GetClusterInfo");
        consumerClient.subscribe("orders", "billing", m -> {
          assertTrue(m.receivedAtUnixMs() >= m.dueAtUnixMs());
          received.add(new String(m.payload()));
        }, ConsumerOptions.defaults());
        FutureQProducer producer = producerClient.producer(ProducerOptions.defaults()
            .withLinger(Duration.ofMillis(1)));
        for (int i = 0; i < 100; i++) {
          String id = "m-" + i;
          producer.send(OutgoingMessage.to("orders").payload(id).key(id).delay(Duration.ofMillis(500)).build())
              .get(20, TimeUnit.SECONDS);
          acked.add(id);
        }
        long killedAt = System.currentTimeMillis();
        cluster.stop(leader);
        long firstAfterKill = -1;
        for (int i = 100; i < 200; i++) {
          String id = "m-" + i;
          try {
            producer.send(OutgoingMessage.to("orders").payload(id).key(id).delay(Duration.ofMillis(500)).build())
                .get(30, TimeUnit.SECONDS);
            acked.add(id);
            if (firstAfterKill < 0) {
              firstAfterKill = System.currentTimeMillis() - killedAt;
              System.out.println("first publish acked " + firstAfterKill + " ms after the leader stopped");
            }
          } catch (ExecutionException e) {
            // not acked: the producer retries it; only acked messages must arrive
          }
        }
        ClusterTopics.awaitReceived(received, acked, Duration.ofSeconds(60), "orders (acked messages)");
        assertTrue(acked.size() >= 150, "only " + acked.size() + " publishes acked");
      }
    }
  }

  @Test
  void aTopicMovesWhenItsNodeStopsAndTheStoppedNodeCatchesUpWhenRestarted() throws Exception {
    try (ClusterNodes cluster = new ClusterNodes(dir, 3)) {
      cluster.startAll();
      cluster.awaitAllReady(Duration.ofSeconds(90));
      Set<String> received = ConcurrentHashMap.newKeySet();
      FutureQClient.Builder all = FutureQClient.builder();
      for (int i = 0; i < 3; i++) {
        all.target(cluster.target(i));
      }
      try (FutureQClient client = all.build()) {
        client.subscribe("moving", "g", m -> received.add(new String(m.payload())), ConsumerOptions.defaults());
        FutureQProducer producer = client.producer(ProducerOptions.defaults().withLinger(Duration.ofMillis(1)));
        for (int i = 0; i < 20; i++) {
          producer.send(OutgoingMessage.to("moving").payload("before-" + i).key("before-" + i)
              .delay(Duration.ofSeconds(4)).build()).get(20, TimeUnit.SECONDS);
        }
        int host = hostOf(client, "moving");
        cluster.stop(host);
        Await.until("the 20 pending messages of the moved topic delivered", Duration.ofSeconds(60),
            () -> received.size() >= 20, () -> "received " + received);
        assertEquals(20, received.size(), "pending messages of the moved topic: " + received);

        cluster.start(host);
        cluster.awaitAllReady(Duration.ofSeconds(90));
        try (FutureQClient viaRestarted = FutureQClient.builder().target(cluster.target(host)).build()) {
          ClusterInfo seen = viaRestarted.clusterInfo().get(10, TimeUnit.SECONDS);
          seen.getMembersList().stream().filter(Member::getReachable).forEach(m -> assertFalse(
              m.getGrpcAddress().isEmpty(),
              "the restarted node, ready, names no gRPC address for " + m + " in " + seen));
          viaRestarted.producer(ProducerOptions.defaults().withLinger(Duration.ofMillis(1)))
              .send(OutgoingMessage.to("moving").payload("after").key("after").build()).get(30, TimeUnit.SECONDS);
          ClusterInfo info = viaRestarted.clusterInfo().get(10, TimeUnit.SECONDS);
          assertEquals(3, info.getRaft().getPeersCount());
        }
        Await.until("a publish through the restarted node delivered", Duration.ofSeconds(30),
            () -> received.contains("after"));
      }
    }
  }

  /** The index of the node whose member entry lists {@code topic} among its hosted topics. */
  private static int hostOf(FutureQClient client, String topic) {
    return Await.value("a member that hosts topic " + topic, Duration.ofSeconds(10), () -> {
      for (var m : client.clusterInfo().get(10, TimeUnit.SECONDS).getMembersList()) {
        if (m.getTopicsList().contains(topic)) {
          return Integer.parseInt(m.getNodeId().substring("node-".length())) - 1;
        }
      }
      return null;
    });
  }
}
