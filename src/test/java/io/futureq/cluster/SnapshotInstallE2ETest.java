package io.futureq.cluster;

import static io.futureq.cluster.ClusterTopics.awaitReceived;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.client.ConsumerOptions;
import io.futureq.client.FutureQClient;
import io.futureq.client.FutureQProducer;
import io.futureq.client.OutgoingMessage;
import io.futureq.client.ProducerOptions;
import io.futureq.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
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
 * A follower that hosts a topic misses so much of the log that it catches up by installing the
 * leader's snapshot, while it keeps hosting the topic: the messages inside the snapshot must still
 * be delivered (issue 9 #1: they stayed stuck until the topic moved). While it is cut off it delivers
 * nothing (issue 9, bug 6: it delivered a message cancelled meanwhile).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class SnapshotInstallE2ETest {
  private static final int MISSED = 30;
  /**
   * Both tests need the topic to stay on the node they cut off. Sharding rebalances every 10 s by default, and in
   * the first minute of a cluster it does move shards: a topic that left the cut-off node for one in touch was then
   * rightly delivered in full, and the first test failed with every message delivered ("[missed-0..29, warm,
   * marker]", twice in the full suite). No rebalancing in these clusters.
   */
  private static final String REBALANCE_INTERVAL = "pekko.cluster.sharding.rebalance-interval";
  private static final String NO_REBALANCE = "1h";

  @TempDir
  Path dir;

  @Test
  void aCutOffHostDeliversNothingStaleAndTheMessagesInsideAnInstalledSnapshotAfterwards() throws Exception {
    // Snapshots every 20 entries in 4 KiB segments: the leader compacts its log past the cut-off
    // follower within a few seconds, so the follower can only catch up by installing a snapshot.
    // The cut stops only the Raft traffic *to* the follower; what it sends still arrives. With the
    // default 1 s election timeout, a loaded machine (the full suite) can let the others miss their
    // leader's heartbeats long enough to grant the cut-off follower's pre-vote and vote: it then leads,
    // commits everything and rightly delivers it, and the test fails on a premise that no longer holds.
    // 2 s keeps the leader in place (the down-removal-margin must exceed it, so it is 3 s here); the
    // replica lease, also 2 s, is why the due time is 14 s out.
    Map<String, Object> small = Map.of("futureq.raft.snapshot-threshold", 20, "futureq.raft.log-segment-size", "4KiB",
        "futureq.raft.election-timeout", "2s", "pekko.cluster.down-removal-margin", "3s", REBALANCE_INTERVAL,
        NO_REBALANCE);
    try (ClusterNodes cluster = new ClusterNodes(dir, 3, small, true)) {
      cluster.startAll();
      cluster.awaitAllReady(Duration.ofSeconds(90));
      try (FutureQClient client = ClusterTopics.clientOfAll(cluster)) {
        FutureQProducer producer = client.producer(ProducerOptions.defaults().withLinger(Duration.ofMillis(1)));
        Map<String, Set<String>> received = ClusterTopics.subscribeAndWarm(client, producer, "install", 8, "g");
        List<String> topics = new ArrayList<>(received.keySet());
        ClusterTopics.Hosted on = ClusterTopics.onFollower(client, topics);
        String topic = on.topic();
        int follower = on.node();
        String leader = "node-" + (on.leader() + 1);
        String other = topics.stream().filter(t -> !t.equals(on.topic())).findFirst().orElseThrow();

        // A marker due while the follower is cut off, and a message cancelled while it is cut off.
        // Due 14 s from now: the follower must have applied both before it is cut off, and its lease
        // (2 s) must have run out before they fall due.
        long dueAt = System.currentTimeMillis() + 14_000;
        producer.send(OutgoingMessage.to(topic).payload("marker").key("marker").at(Instant.ofEpochMilli(dueAt))
            .build())
            .get(20, TimeUnit.SECONDS);
        producer.send(OutgoingMessage.to(topic).payload("cancelled").key("cancelled")
            .at(Instant.ofEpochMilli(dueAt)).build()).get(20, TimeUnit.SECONDS);
        long published = System.currentTimeMillis();
        awaitStored(cluster, follower, topic, "marker");
        awaitStored(cluster, follower, topic, "cancelled");
        System.out.println("[install] cutting node-" + (follower + 1) + " (hosts " + topic + ") off leader " + leader
            + "; published " + (published - dueAt + 14_000) + " ms and applied there " + (System.currentTimeMillis()
            - published) + " ms after the due time was set");
        cluster.raftProxy(follower).cut();
        assertTrue(System.currentTimeMillis() < dueAt - 4_000, "too slow to cut the follower off before the due time");
        assertTrue(client.cancelByKey(topic, "cancelled").get(20, TimeUnit.SECONDS).getExisted(),
            "the cancel was committed by the two nodes still in touch");
        Set<String> missed = new TreeSet<>();
        for (int i = 0; i < MISSED; i++) {
          missed.add("missed-" + i);
          producer.send(OutgoingMessage.to(topic).payload("missed-" + i).build()).get(20, TimeUnit.SECONDS);
        }
        for (int i = 0; i < 100; i++) {
          producer.send(OutgoingMessage.to(other).payload("filler-" + i).build()).get(20, TimeUnit.SECONDS);
        }
        // Issue 9, bug 6: a host out of touch with the Raft group does not know of the cancel (nor of
        // the messages after it), so it delivers nothing until it has caught up: neither the marker nor
        // the cancelled message, although both fall due while it is cut off.
        Await.holdsFor("the cut-off host delivering neither marker nor cancelled until 3 s after their due time",
            Duration.ofMillis(Math.max(0, dueAt + 3_000 - System.currentTimeMillis())),
            () -> !received.get(topic).contains("marker") && !received.get(topic).contains("cancelled"));
        assertNotLeader(cluster, on.leader(), follower);
        assertFalse(received.get(topic).contains("marker") || received.get(topic).contains("cancelled"),
            "the cut-off host delivered from its stale store: " + received.get(topic));
        cluster.raftProxy(follower).heal();

        Set<String> expected = new TreeSet<>(missed);
        expected.add("warm");
        expected.add("marker");
        awaitReceived(received.get(topic), expected, Duration.ofSeconds(90), topic + " on node-" + (follower + 1));
        Await.holdsFor("a message cancelled while its host was cut off not delivered after all",
            Duration.ofSeconds(1), () -> !received.get(topic).contains("cancelled"));
      }
    }
  }

  /**
   * A group created while the node hosting its topic lags behind the log must not read that node's
   * stale store: messages acked and deleted before the group existed are not "still stored when it
   * is created" (issue 9 #3: they were delivered to the new group).
   */
  @Test
  void aGroupStartingOnALaggingReplicaDoesNotSeeMessagesDeletedBeforeItWasCreated() throws Exception {
    try (ClusterNodes cluster = new ClusterNodes(dir, 3, Map.of(REBALANCE_INTERVAL, NO_REBALANCE), true)) {
      cluster.startAll();
      cluster.awaitAllReady(Duration.ofSeconds(90));
      try (FutureQClient client = ClusterTopics.clientOfAll(cluster)) {
        FutureQProducer producer = client.producer(ProducerOptions.defaults().withLinger(Duration.ofMillis(1)));
        Map<String, Set<String>> first = ClusterTopics.subscribeAndWarm(client, producer, "lagging", 8, "first");
        ClusterTopics.Hosted on = ClusterTopics.onFollower(client, new ArrayList<>(first.keySet()));
        String topic = on.topic();
        int follower = on.node();
        String leader = "node-" + (on.leader() + 1);
        // Stored on every replica, due only once the follower is cut off: the group acks them then,
        // and their deletes commit without the follower.
        Set<String> old = new TreeSet<>();
        for (int i = 0; i < 10; i++) {
          old.add("old-" + i);
          producer.send(OutgoingMessage.to(topic).payload("old-" + i).delay(Duration.ofSeconds(3)).build())
              .get(20, TimeUnit.SECONDS);
        }
        awaitApplied(cluster, follower, on.leader());
        System.out.println("[lagging] cutting node-" + (follower + 1) + " (hosts " + topic + ") off leader "
            + leader);
        cluster.raftProxy(follower).cut();
        Set<String> expected = new TreeSet<>(old);
        expected.add("warm");
        awaitReceived(first.get(topic), expected, Duration.ofSeconds(30), topic);
        // A sleep: acks are flushed as deletes every 20 ms here, so these commit long before the next step; no API
        // shows them committed while the topic's host, which answers for it, is cut off.
        Thread.sleep(2_000);
        Set<String> second = ConcurrentHashMap.newKeySet();
        client.subscribe(topic, "second", m -> second.add(new String(m.payload())), ConsumerOptions.defaults());
        // A sleep, for the same reason: the new group is being created while the follower lags.
        Thread.sleep(2_000);
        assertNotLeader(cluster, on.leader(), follower);
        cluster.raftProxy(follower).heal();
        producer.send(OutgoingMessage.to(topic).payload("new").build()).get(30, TimeUnit.SECONDS);
        awaitReceived(second, Set.of("new"), Duration.ofSeconds(60), topic + ", group second");
        assertEquals(Set.of("new"), second, "the new group received messages deleted before it was created");
      }
    }
  }

  /**
   * The premise of a cut: the cut-off follower has not become the leader (its outgoing Raft traffic still
   * arrives, see above). Asked of a node in touch with the group.
   */
  private static void assertNotLeader(ClusterNodes cluster, int askedNode, int cutOff) throws Exception {
    try (FutureQClient node = FutureQClient.builder().target(cluster.target(askedNode))
        .discoveryInterval(Duration.ZERO).build()) {
      String leader = node.clusterInfo().get(10, TimeUnit.SECONDS).getRaft().getLeaderId();
      assertFalse(leader.equals("node-" + (cutOff + 1)), "test premise broken: the cut-off node-" + (cutOff + 1)
          + " was elected Raft leader (its outgoing Raft traffic still arrives), so it rightly delivers");
    }
  }

  /** Waits until node {@code i}'s own store holds the message with {@code key}. */
  private static void awaitStored(ClusterNodes cluster, int i, String topic, String key) throws Exception {
    try (FutureQClient node = FutureQClient.builder().target(cluster.target(i)).discoveryInterval(Duration.ZERO)
        .build()) {
      Await.until("node-" + (i + 1) + " to store " + key, Duration.ofSeconds(30), () -> {
        node.getMessageByKey(topic, key, false).get(10, TimeUnit.SECONDS); // fails until it is stored
        return true;
      });
    }
  }

  /** Waits until node {@code i}'s replica has applied everything the leader had committed when asked. */
  private static void awaitApplied(ClusterNodes cluster, int i, int leader) throws Exception {
    long committed;
    try (FutureQClient viaLeader = FutureQClient.builder().target(cluster.target(leader)).build()) {
      committed = viaLeader.clusterInfo().get(10, TimeUnit.SECONDS).getRaft().getCommitIndex();
    }
    try (FutureQClient node = FutureQClient.builder().target(cluster.target(i)).build()) {
      Await.until("node-" + (i + 1) + " to apply log index " + committed, Duration.ofSeconds(30),
          () -> node.clusterInfo().get(10, TimeUnit.SECONDS).getRaft().getAppliedIndex(),
          applied -> applied >= committed);
    }
  }


}
