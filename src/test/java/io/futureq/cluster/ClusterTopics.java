package io.futureq.cluster;

import io.futureq.api.grpc.ClusterInfo;
import io.futureq.client.ConsumerOptions;
import io.futureq.client.FutureQClient;
import io.futureq.client.FutureQProducer;
import io.futureq.client.OutgoingMessage;
import io.futureq.testing.Await;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/** Topics spread over a test cluster: subscribed, warmed up, and found on a follower. */
final class ClusterTopics {
  private ClusterTopics() {}

  /** Which node hosts which of the topics: a follower and one topic it hosts. */
  record Hosted(int node, String topic, int leader) {}

  /** A client that knows every node of {@code cluster}. */
  static FutureQClient clientOfAll(ClusterNodes cluster) {
    FutureQClient.Builder all = FutureQClient.builder().requestTimeout(Duration.ofSeconds(10));
    for (int i = 0; i < cluster.size; i++) {
      all.target(cluster.target(i));
    }
    return all.build();
  }

  /**
   * Subscribes group {@code group} to {@code count} topics named {@code prefix-0...} and waits until
   * each delivered a first message ("warm"), so every topic has a running entity somewhere.
   *
   * @return what each topic's consumer received, by topic (payloads as strings)
   */
  static Map<String, Set<String>> subscribeAndWarm(FutureQClient client, FutureQProducer producer, String prefix,
      int count, String group) throws Exception {
    Map<String, Set<String>> received = new LinkedHashMap<>();
    for (int t = 0; t < count; t++) {
      String topic = prefix + "-" + t;
      Set<String> got = ConcurrentHashMap.newKeySet();
      received.put(topic, got);
      client.subscribe(topic, group, m -> got.add(new String(m.payload())), ConsumerOptions.defaults());
      producer.send(OutgoingMessage.to(topic).payload("warm").build()).get(20, TimeUnit.SECONDS);
    }
    for (Map.Entry<String, Set<String>> topic : received.entrySet()) {
      awaitReceived(topic.getValue(), Set.of("warm"), Duration.ofSeconds(30), topic.getKey());
    }
    return received;
  }

  /**
   * A node other than the Raft leader that hosts one of {@code topics}. The members' topic lists
   * spread by gossip, so it asks again for a while.
   */
  static Hosted onFollower(FutureQClient client, List<String> topics) {
    ClusterInfo[] last = {null};
    return Await.value("a follower that hosts one of " + topics, Duration.ofSeconds(30), () -> {
      ClusterInfo info = client.clusterInfo().get(10, TimeUnit.SECONDS);
      last[0] = info;
      String leader = info.getRaft().getLeaderId();
      for (var member : info.getMembersList()) {
        String hosted = member.getTopicsList().stream().filter(topics::contains).findFirst().orElse(null);
        if (!member.getNodeId().equals(leader) && hosted != null) {
          return new Hosted(index(member.getNodeId()), hosted, index(leader));
        }
      }
      return null;
    }, () -> "the cluster then: " + last[0]);
  }

  /** The index of the node whose Raft replica leads, as node 1 sees it. */
  static int raftLeader(ClusterNodes cluster) throws Exception {
    try (FutureQClient client = FutureQClient.builder().target(cluster.target(0)).build()) {
      return index(client.clusterInfo().get(10, TimeUnit.SECONDS).getRaft().getLeaderId());
    }
  }

  static int index(String nodeId) {
    return Integer.parseInt(nodeId.substring("node-".length())) - 1;
  }

  /** Waits until {@code received} holds every one of {@code expected}; a timeout names those missing. */
  static void awaitReceived(Set<String> received, Set<String> expected, Duration within, String what) {
    Await.until("every expected message delivered from " + what, within, () -> received.containsAll(expected),
        () -> {
          Set<String> missing = new TreeSet<>(expected);
          missing.removeAll(received);
          return "not delivered: " + missing;
        });
  }
}
