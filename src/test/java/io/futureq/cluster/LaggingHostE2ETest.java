package io.futureq.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.TextFormat;
import io.futureq.api.grpc.ClusterInfo;
import io.futureq.client.ConsumerOptions;
import io.futureq.client.FutureQClient;
import io.futureq.client.FutureQProducer;
import io.futureq.client.OutgoingMessage;
import io.futureq.client.ProducerOptions;
import io.futureq.e2e.FaultyStore;
import io.futureq.testing.Await;
import io.futureq.testing.Groups;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cancel (then a reschedule) is committed by the Raft leader and one follower while the topic's host,
 * the other follower, still has it to apply: its replica is in touch with the leader, so it counts as current,
 * but its apply lags (here: its store's commits are held). Before the fix the cancel was answered
 * {@code existed = true} at once, and the host delivered the message when it fell due, after that
 * answer (issue 9, bug 6: cancelled messages delivered by a host stale for less than the lease). Now
 * the answer waits until the host has applied the cancel and its groups have dropped the message; a
 * reschedule's answer likewise.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class LaggingHostE2ETest {
  /** Long enough that the host's confirmation is not given up on while its commits are held. */
  private static final Map<String, Object> PATIENT_REQUESTS = Map.of("futureq.api.request-timeout", "60s");

  @TempDir
  Path dir;

  @Test
  void cancelsAndReschedulesAreAnsweredOnlyOnceTheTopicsLaggingHostHasTakenThemIn() throws Exception {
    try (ClusterNodes cluster = new ClusterNodes(dir, 3, PATIENT_REQUESTS, false)) {
      FaultyStore[] stores = cluster.startAllOnFaultyStores();
      cluster.awaitAllReady(Duration.ofSeconds(90));
      try (FutureQClient client = ClusterTopics.clientOfAll(cluster)) {
        FutureQProducer producer = client.producer(ProducerOptions.defaults().withLinger(Duration.ofMillis(1)));
        Map<String, Set<String>> warmed = ClusterTopics.subscribeAndWarm(client, producer, "lagging", 8, "g");
        ClusterTopics.Hosted hosted = ClusterTopics.onFollower(client, new ArrayList<>(warmed.keySet()));
        String topic = hosted.topic();
        Map<String, Long> firstArrival = new ConcurrentHashMap<>();
        Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
        client.subscribe(topic, "watch", m -> {
          String payload = new String(m.payload());
          firstArrival.putIfAbsent(payload, System.nanoTime());
          deliveries.computeIfAbsent(payload, p -> new AtomicInteger()).incrementAndGet();
        }, ConsumerOptions.defaults());
        // Group g acks what it gets, and a message every group acked is deleted: sent before "watch" is
        // registered, watch-warm could be acked by g and gone before "watch" exists (seen under the full
        // suite's load: the subscription's registration committed after the publish).
        awaitConsumerOf(client, topic, "watch");
        send(producer, topic, "watch-warm", Duration.ZERO);
        awaitArrival(client, topic, firstArrival, "watch-warm");

        send(producer, topic, "doomed", Duration.ofSeconds(3));
        // Log order: once the host delivers this, its replica has applied "doomed" too.
        send(producer, topic, "applied-marker", Duration.ZERO);
        awaitArrival(client, topic, firstArrival, "applied-marker");
        System.out.println("[lagging-host] node-" + (hosted.node() + 1) + " hosts " + topic
            + "; its store's commits are held, then doomed is cancelled");
        stores[hosted.node()].holdCommits();
        CompletableFuture<Boolean> cancel;
        long answeredAt;
        try {
          cancel = producer.cancel(topic, "doomed");
          // The host does not know of the cancel: its groups deliver the message when it falls due.
          awaitArrival(client, topic, firstArrival, "doomed");
          assertFalse(cancel.isDone(), "the cancel was answered while the topic's host could still deliver the "
              + "message, and did: " + (cancel.isDone() ? cancel.join() : ""));
        } finally {
          stores[hosted.node()].releaseCommits();
        }
        assertTrue(cancel.get(60, TimeUnit.SECONDS), "the cancel found the message");
        answeredAt = System.nanoTime();
        assertTrue(firstArrival.get("doomed") < answeredAt);

        send(producer, topic, "after", Duration.ZERO);
        awaitArrival(client, topic, firstArrival, "after");
        assertEquals(1, deliveries.get("doomed").get(), "a cancelled message is not delivered again");

        // The same for a reschedule: moved an hour ahead while the host lags, delivered at its old time.
        send(producer, topic, "moved", Duration.ofSeconds(3));
        send(producer, topic, "applied-marker-2", Duration.ZERO);
        awaitArrival(client, topic, firstArrival, "applied-marker-2");
        stores[hosted.node()].holdCommits();
        CompletableFuture<?> reschedule;
        try {
          reschedule = client.rescheduleByKey(topic, "moved", Instant.now().plus(Duration.ofHours(1)));
          awaitArrival(client, topic, firstArrival, "moved");
          assertFalse(reschedule.isDone(), "the reschedule was answered while the topic's host could still "
              + "deliver the message at its old time, and did");
        } finally {
          stores[hosted.node()].releaseCommits();
        }
        reschedule.get(60, TimeUnit.SECONDS);
      }
    }
  }

  private static void send(FutureQProducer producer, String topic, String payload, Duration delay) throws Exception {
    producer.send(OutgoingMessage.to(topic).payload(payload).key(payload).delay(delay).build())
        .get(30, TimeUnit.SECONDS);
  }

  private static void awaitArrival(FutureQClient client, String topic, Map<String, Long> arrivals, String payload) {
    Await.until(payload + " delivered", Duration.ofSeconds(60), () -> arrivals.containsKey(payload),
        () -> "the cluster then: " + stateOf(client, topic));
  }

  /** Waits until the topic's group {@code group} exists and has a consumer. */
  private static void awaitConsumerOf(FutureQClient client, String topic, String group) {
    Groups.awaitConsumer(client, topic, group, Duration.ofSeconds(60), () -> stateOf(client, topic));
  }

  /** Where the topic is hosted, who leads, and what its groups hold: what a failure needs to be diagnosed. */
  private static String stateOf(FutureQClient client, String topic) {
    StringBuilder state = new StringBuilder();
    try {
      ClusterInfo info = client.clusterInfo().get(10, TimeUnit.SECONDS);
      state.append("raft leader ").append(info.getRaft().getLeaderId());
      info.getMembersList().forEach(m -> state.append("; ").append(m.getNodeId())
          .append(m.getTopicsList().contains(topic) ? " hosts it" : ""));
      state.append("; stats: ").append(TextFormat.shortDebugString(client.topicStats(topic).get(10, TimeUnit.SECONDS)));
    } catch (Exception e) {
      state.append(" (could not ask: ").append(e).append(')');
    }
    return state.toString();
  }
}
