package io.futureq.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.futureq.api.grpc.ListMessagesRequest;
import io.futureq.api.grpc.PendingMessage;
import io.futureq.client.ConsumerOptions;
import io.futureq.client.FutureQClient;
import io.futureq.client.FutureQProducer;
import io.futureq.client.OutgoingMessage;
import io.futureq.client.ProducerOptions;
import io.futureq.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Administration through any node of three: every replica applies it alike, the topic's host announces it. */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class AdministrationClusterE2ETest {
  @TempDir
  Path dir;

  @Test
  void aRescheduleAndAGroupDeleteThroughAnyNodeReachEveryReplica() throws Exception {
    try (ClusterNodes cluster = new ClusterNodes(dir, 3)) {
      cluster.startAll();
      cluster.awaitAllReady(Duration.ofSeconds(90));
      List<FutureQClient> nodes = List.of(only(cluster, 0), only(cluster, 1), only(cluster, 2));
      try {
        Set<String> received = ConcurrentHashMap.newKeySet();
        nodes.get(0).subscribe("sched", "billing", m -> received.add(m.messageId()), ConsumerOptions.defaults())
            .subscribed().get(30, TimeUnit.SECONDS);
        nodes.get(0).subscribe("sched", "billng", m -> { }, ConsumerOptions.defaults().withManualAck())
            .subscribed().get(30, TimeUnit.SECONDS);
        FutureQProducer producer = nodes.get(0).producer(ProducerOptions.defaults());
        producer.send(OutgoingMessage.to("sched").payload("now").key("k1").delay(Duration.ofHours(1)).build())
            .get(20, TimeUnit.SECONDS);
        producer.send(OutgoingMessage.to("sched").payload("later").key("k2").delay(Duration.ofHours(1)).build())
            .get(20, TimeUnit.SECONDS);

        String due = nodes.get(1).rescheduleByKey("sched", "k1", Instant.EPOCH).get(20, TimeUnit.SECONDS)
            .getMessageId();
        Instant at = Instant.now().plus(Duration.ofHours(2));
        String moved = nodes.get(2).rescheduleByKey("sched", "k2", at).get(20, TimeUnit.SECONDS).getMessageId();

        awaitTrue(() -> received.contains(due), "the message rescheduled to now was delivered");
        for (FutureQClient node : nodes) {
          awaitTrue(() -> {
            PendingMessage m = node.getMessageByKey("sched", "k2", false).get(10, TimeUnit.SECONDS);
            return m.getMessageId().equals(moved) && m.getDueUnixMs() == at.toEpochMilli();
          }, "every replica moved k2");
        }
        // billng holds "now" (never acked); deleting it through another node frees it.
        awaitTrue(() -> nodes.get(1).topicStats("sched").get(10, TimeUnit.SECONDS).getGroupsList().stream()
            .anyMatch(g -> g.getName().equals("billing") && g.getLag() == 1), "billing acked 'now'");
        assertEquals(1, nodes.get(2).deleteGroup("sched", "billng").get(20, TimeUnit.SECONDS).getRemoved());
        for (FutureQClient node : nodes) {
          awaitTrue(() -> node.listMessages(ListMessagesRequest.newBuilder().setTopic("sched")
              .build()).get(10, TimeUnit.SECONDS).getMessagesCount() == 1, "every replica kept only k2");
        }
      } finally {
        nodes.forEach(FutureQClient::close);
      }
    }
  }

  private static FutureQClient only(ClusterNodes cluster, int i) {
    return FutureQClient.builder().target(cluster.target(i)).discoveryInterval(Duration.ZERO).build();
  }

  private static void awaitTrue(Await.Condition check, String what) {
    Await.until(what, Duration.ofSeconds(30), check);
  }
}
