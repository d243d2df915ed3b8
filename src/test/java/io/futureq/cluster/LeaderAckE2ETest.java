package io.futureq.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.api.grpc.AckLevel;
import io.futureq.client.ConsumerOptions;
import io.futureq.client.FutureQClient;
import io.futureq.client.FutureQProducer;
import io.futureq.client.OutgoingMessage;
import io.futureq.client.ProducerOptions;
import io.futureq.client.SendResult;
import io.futureq.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ACK_LEVEL_LEADER} in a cluster: answered once the Raft leader's own log has the entry on disk, before a
 * majority has it, with the ids the messages are then stored under; {@code ACK_LEVEL_QUORUM} waits for the
 * majority.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class LeaderAckE2ETest {
  @TempDir
  static Path dir;

  /**
   * One cluster for both tests (each cluster start costs 15-20 s of the suite): Raft behind proxies, so the first
   * can cut the followers off, and a 2 s election timeout, so a short cut does not cost the leader its place.
   */
  private static ClusterNodes cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = new ClusterNodes(dir, 3, Map.of("futureq.raft.election-timeout", "2s",
        "pekko.cluster.down-removal-margin", "3s"), true);
    cluster.startAll();
    cluster.awaitAllReady(Duration.ofSeconds(90));
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  /**
   * With both followers' Raft traffic cut, nothing commits: a LEADER publish is answered all the same, a QUORUM
   * publish is not, and once the followers are back both are delivered, under the ids answered. The cut lasts well
   * under the 2 s election timeout, so the leader keeps its place (the leader-acked entry would be lost otherwise,
   * as the README says). Nothing else may be in flight at the cut: the write leader persists one entry at a time,
   * so a LEADER publish behind an entry that cannot commit waits with it. Hence no consumer before the heal (its
   * acks would be writes), and a QUORUM publish first, whose answer means everything before it is applied.
   */
  @Test
  void aLeaderAckedPublishIsAnsweredBeforeAMajorityHasItUnderTheIdItIsDeliveredWith() throws Exception {
    try (FutureQClient client = ClusterTopics.clientOfAll(cluster)) {
      FutureQProducer quorum = client.producer(ProducerOptions.defaults().withLinger(Duration.ofMillis(1)));
      FutureQProducer leaderAcked = client.producer(ProducerOptions.defaults().withLinger(Duration.ofMillis(1))
          .withAckLevel(AckLevel.ACK_LEVEL_LEADER));
      // A first LEADER publish in touch with everyone, then a QUORUM one: once it is answered, nothing is in flight.
      SendResult before = leaderAcked.send(OutgoingMessage.to("acks").payload("before").build())
          .get(20, TimeUnit.SECONDS);
      SendResult settled = quorum.send(OutgoingMessage.to("acks").payload("settled").build())
          .get(20, TimeUnit.SECONDS);

      int leader = ClusterTopics.raftLeader(cluster);
      List<Integer> followers = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        if (i != leader) {
          followers.add(i);
        }
      }
      followers.forEach(f -> cluster.raftProxy(f).cut());
      SendResult onLeaderDisk;
      CompletableFuture<SendResult> waitsForMajority;
      try {
        onLeaderDisk = leaderAcked.send(OutgoingMessage.to("acks").payload("leader-acked").build())
            .get(20, TimeUnit.SECONDS);
        waitsForMajority = quorum.send(OutgoingMessage.to("acks").payload("quorum-acked").build());
        Await.holdsFor("test premise: a QUORUM publish unanswered while both followers are cut off",
            Duration.ofMillis(300), () -> !waitsForMajority.isDone());
      } finally {
        followers.forEach(f -> cluster.raftProxy(f).heal());
      }
      SendResult afterHeal = waitsForMajority.get(30, TimeUnit.SECONDS);
      assertEquals(leader, ClusterTopics.raftLeader(cluster), "test premise broken: the leader lost its place "
          + "during the cut, and with it possibly the leader-acked entry");

      Map<String, String> delivered = new ConcurrentHashMap<>();
      client.subscribe("acks", "g", m -> delivered.put(new String(m.payload()), m.messageId()),
          ConsumerOptions.defaults());
      awaitDelivered(delivered, List.of("before", "settled", "leader-acked", "quorum-acked"));
      assertEquals(before.messageId(), delivered.get("before"));
      assertEquals(settled.messageId(), delivered.get("settled"));
      assertEquals(onLeaderDisk.messageId(), delivered.get("leader-acked"), "the id answered at the leader's disk");
      assertEquals(afterHeal.messageId(), delivered.get("quorum-acked"));
      assertFalse(onLeaderDisk.duplicate());
    }
  }

  /**
   * Ids answered at the leader's disk name the stored messages (a cancel by id finds its message), through any node,
   * and the messages survive a restart of the leader's node on the same disk.
   */
  @Test
  void leaderAckedIdsNameTheStoredMessagesAndSurviveALeaderRestart() throws Exception {
    Map<String, String> answered = new HashMap<>();
    try (FutureQClient client = ClusterTopics.clientOfAll(cluster)) {
      FutureQProducer producer = client.producer(ProducerOptions.defaults().withLinger(Duration.ofMillis(1))
          .withAckLevel(AckLevel.ACK_LEVEL_LEADER));
      List<CompletableFuture<SendResult>> sends = new ArrayList<>();
      for (int i = 0; i < 30; i++) {
        sends.add(producer.send(OutgoingMessage.to("restart-" + (i % 3)).payload("m-" + i)
            .delay(Duration.ofSeconds(6)).build()));
      }
      for (int i = 0; i < 30; i++) {
        SendResult result = sends.get(i).get(20, TimeUnit.SECONDS);
        assertFalse(result.duplicate());
        assertFalse(answered.containsValue(result.messageId()), "an id answered twice: " + result);
        answered.put("m-" + i, result.messageId());
      }
      assertTrue(client.cancelById("restart-0", answered.get("m-0")).get(20, TimeUnit.SECONDS).getExisted(),
          "a cancel by the id answered at the leader's disk finds the message");
    }
    int leader = ClusterTopics.raftLeader(cluster);
    cluster.stop(leader);
    cluster.start(leader);
    cluster.awaitAllReady(Duration.ofSeconds(90));
    try (FutureQClient client = ClusterTopics.clientOfAll(cluster)) {
      Map<String, String> delivered = new ConcurrentHashMap<>();
      for (int t = 0; t < 3; t++) {
        client.subscribe("restart-" + t, "g", m -> delivered.put(new String(m.payload()), m.messageId()),
            ConsumerOptions.defaults());
      }
      List<String> expected = new ArrayList<>(answered.keySet());
      expected.remove("m-0");
      awaitDelivered(delivered, expected);
      for (String payload : expected) {
        assertEquals(answered.get(payload), delivered.get(payload), "id of " + payload);
      }
      Await.holdsFor("the message cancelled by its leader-acked id not delivered", Duration.ofMillis(500),
          () -> !delivered.containsKey("m-0"));
    }
  }

  private static void awaitDelivered(Map<String, String> delivered, List<String> payloads) {
    ClusterTopics.awaitReceived(delivered.keySet(), Set.copyOf(payloads), Duration.ofSeconds(60), "acks");
  }
}
