package io.futureq.cluster;

import static io.futureq.cluster.ClusterTopics.awaitReceived;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.app.Node;
import io.futureq.client.FutureQClient;
import io.futureq.client.FutureQProducer;
import io.futureq.client.OutgoingMessage;
import io.futureq.client.ProducerOptions;
import io.futureq.e2e.FaultyStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A follower whose store stops taking writes can no longer apply the log. It must not keep hosting
 * topics that would never hear of a new message again: it shuts down, saying why, and its topics
 * move (issue 9 #2: 0 of 5 QUORUM-acked messages were delivered in 40 s).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ReplicaFailureE2ETest {
  @TempDir
  Path dir;

  @Test
  void aReplicaThatCannotApplyShutsDownAndItsTopicsAreDeliveredFromTheOtherNodes() throws Exception {
    try (ClusterNodes cluster = new ClusterNodes(dir, 3)) {
      FaultyStore[] stores = cluster.startAllOnFaultyStores();
      cluster.awaitAllReady(Duration.ofSeconds(90));
      try (FutureQClient client = ClusterTopics.clientOfAll(cluster)) {
        FutureQProducer producer = client.producer(ProducerOptions.defaults().withLinger(Duration.ofMillis(1)));
        Map<String, Set<String>> received = ClusterTopics.subscribeAndWarm(client, producer, "fault", 8, "g");
        ClusterTopics.Hosted hosted = ClusterTopics.onFollower(client, new ArrayList<>(received.keySet()));
        System.out.println("[replica-failure] node-" + (hosted.node() + 1) + " (hosts " + hosted.topic()
            + ") loses its disk");
        stores[hosted.node()].failCommits("No space left on device");
        Set<String> expected = new TreeSet<>(Set.of("warm"));
        for (int i = 0; i < 5; i++) {
          expected.add("after-" + i);
          producer.send(OutgoingMessage.to(hosted.topic()).payload("after-" + i).key("after-" + i).build())
              .get(30, TimeUnit.SECONDS);
        }
        Node failed = cluster.nodes[hosted.node()];
        failed.system().getWhenTerminated().toCompletableFuture().get(60, TimeUnit.SECONDS);
        assertTrue(failed.failure().isPresent(), "the node shut down because its replica failed");
        assertTrue(failed.failure().get().contains("No space left on device"), failed.failure().get());
        awaitReceived(received.get(hosted.topic()), expected, Duration.ofSeconds(90),
            hosted.topic() + " after its node failed");
      }
    }
  }
}
