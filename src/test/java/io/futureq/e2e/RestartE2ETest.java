package io.futureq.e2e;

import static io.futureq.e2e.Messages.message;
import static io.futureq.e2e.Messages.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.api.grpc.Delivery;
import io.futureq.api.grpc.ListTopicsRequest;
import io.futureq.api.grpc.PublishResponse;
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
        Thread.sleep(300);
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

  @Test
  void aGroupIsRememberedAndReceivesWhatWasPublishedWhileTheBrokerWasDown() throws Exception {
    Path data = dir.resolve("data2");
    try (TestBroker broker = TestBroker.start(data)) {
      try (Subscription sub = Subscription.open(broker, "t", "g", 10)) {
        Thread.sleep(300);
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
