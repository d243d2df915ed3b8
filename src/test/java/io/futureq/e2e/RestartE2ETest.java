package io.futureq.e2e;

import static io.futureq.e2e.Messages.message;
import static io.futureq.e2e.Messages.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.api.grpc.Delivery;
import io.futureq.api.grpc.GetTopicStatsRequest;
import io.futureq.api.grpc.GroupStats;
import io.futureq.api.grpc.ListTopicsRequest;
import io.futureq.api.grpc.PublishResponse;
import io.futureq.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A broker restarted on the same data directory continues where it stopped. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RestartE2ETest {
  private static final Duration WAIT = Duration.ofSeconds(15);

  @TempDir
  Path dir;

  @Test
  void pendingMessagesSurviveARestartAndAckedOnesAreNotRedelivered() throws Exception {
    Path data = dir.resolve("data");
    String topic = "orders";
    Set<String> acked = new HashSet<>();
    PublishResponse later;
    try (TestBroker broker = TestBroker.start(data)) {
      broker.producer.publish(request(message(topic, "a", 0), message(topic, "b", 0)))
          .toCompletableFuture().get(10, TimeUnit.SECONDS);
      later = broker.producer.publish(request(message(topic, "later", 1500).setKey("k-later")))
          .toCompletableFuture().get(10, TimeUnit.SECONDS);
      try (Subscription sub = Subscription.open(broker, topic, "billing", 10)) {
        List<Subscription.Received> got = sub.take(2, WAIT);
        got.forEach(r -> acked.add(r.delivery().getMessageId()));
        sub.ack(got.stream().map(Subscription.Received::delivery).toArray(Delivery[]::new));
        Await.until("the two acked messages deleted (1 pending)", WAIT, () -> pending(broker, topic),
            pending -> pending == 1);
      }
    }
    try (TestBroker broker = TestBroker.start(data)) {
      var topics = broker.admin.listTopics(ListTopicsRequest.getDefaultInstance()).toCompletableFuture()
          .get(10, TimeUnit.SECONDS);
      assertEquals(List.of("billing"), topics.getTopicsList().stream().filter(t -> t.getName().equals(topic))
          .findFirst().orElseThrow().getGroupsList());
      try (Subscription sub = Subscription.open(broker, topic, "billing", 10)) {
        Subscription.Received r = sub.next(WAIT);
        assertEquals(later.getMessageIds(0), r.delivery().getMessageId());
        assertEquals("k-later", r.delivery().getKey());
        assertTrue(r.receivedAtMs() >= r.delivery().getDueAtUnixMs());
        sub.ack(r.delivery());
        sub.expectNothing(Duration.ofMillis(500));
      }
      PublishResponse again = broker.producer.publish(request(message(topic, "new", 0)))
          .toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertTrue(!acked.contains(again.getMessageIds(0)), "event ids must not repeat after a restart");
    }
  }

  /**
   * A nack delay is durable: after a restart the nacked message waits out its delay (issue 9 #12: a
   * message nacked for 10 minutes came back 1 s after a restart, attempt 1).
   */
  @Test
  void aNackDelayHoldsAcrossARestartAndTheAttemptCountGoesOn() throws Exception {
    Path data = dir.resolve("data-nack");
    String topic = "retries";
    try (TestBroker broker = TestBroker.start(data)) {
      broker.producer.publish(request(message(topic, "long", 0), message(topic, "short", 0)))
          .toCompletableFuture().get(10, TimeUnit.SECONDS);
      try (Subscription sub = Subscription.open(broker, topic, "g", 10)) {
        for (Subscription.Received r : sub.take(2, WAIT)) {
          String payload = r.delivery().getPayload().toStringUtf8();
          sub.nack(r.delivery(), payload.equals("long") ? 600_000 : 2_000);
        }
        Await.until("both nacks held (2 delayed in g)", WAIT, () -> delayedIn(broker, topic, "g"),
            delayed -> delayed == 2);
      }
    }
    try (TestBroker broker = TestBroker.start(data)) {
      try (Subscription sub = Subscription.open(broker, topic, "g", 10)) {
        Subscription.Received back = sub.next(WAIT);
        assertEquals("short", back.delivery().getPayload().toStringUtf8());
        assertEquals(2, back.delivery().getAttempt(), "the attempt count survives the restart");
        sub.ack(back.delivery());
        Await.until("the 10-minute nack held after the restart (1 delayed in g)", WAIT,
            () -> delayedIn(broker, topic, "g"), delayed -> delayed == 1);
        sub.expectNothing(Duration.ofMillis(1500));
      }
    }
  }

  private static long pending(TestBroker broker, String topic) throws Exception {
    return broker.admin.getTopicStats(GetTopicStatsRequest.newBuilder().setTopic(topic).build())
        .toCompletableFuture().get(10, TimeUnit.SECONDS).getPending();
  }

  private static long delayedIn(TestBroker broker, String topic, String group) throws Exception {
    return broker.admin.getTopicStats(GetTopicStatsRequest.newBuilder().setTopic(topic).build())
        .toCompletableFuture().get(10, TimeUnit.SECONDS).getGroupsList().stream()
        .filter(g -> g.getName().equals(group)).mapToLong(GroupStats::getDelayed).sum();
  }

  @Test
  void aGroupIsRememberedAndReceivesWhatWasPublishedWhileTheBrokerWasDown() throws Exception {
    Path data = dir.resolve("data2");
    try (TestBroker broker = TestBroker.start(data)) {
      try (Subscription sub = Subscription.open(broker, "t", "g", 10)) {
        sub.awaitSubscribed(WAIT);
        Await.until("group g of t listed", WAIT, () -> broker.admin.listTopics(ListTopicsRequest.getDefaultInstance())
            .toCompletableFuture().get(10, TimeUnit.SECONDS).getTopicsList().stream()
            .anyMatch(t -> t.getName().equals("t") && t.getGroupsList().contains("g")));
      }
    }
    try (TestBroker broker = TestBroker.start(data)) {
      broker.producer.publish(request(message("t", "x", 0))).toCompletableFuture().get(10, TimeUnit.SECONDS);
      try (Subscription sub = Subscription.open(broker, "t", "g", 10)) {
        assertEquals("x", sub.next(WAIT).delivery().getPayload().toStringUtf8());
      }
    }
  }
}
