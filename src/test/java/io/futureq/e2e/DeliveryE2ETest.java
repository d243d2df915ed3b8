package io.futureq.e2e;

import static io.futureq.e2e.Messages.message;
import static io.futureq.e2e.Messages.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.api.grpc.CancelRequest;
import io.futureq.api.grpc.CancelResponse;
import io.futureq.api.grpc.Delivery;
import io.futureq.api.grpc.GetTopicStatsRequest;
import io.futureq.api.grpc.PublishRequest;
import io.futureq.api.grpc.PublishResponse;
import io.futureq.api.grpc.TopicStats;
import io.futureq.config.StorageEngine;
import io.futureq.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Publish and consume through a real broker over gRPC on loopback, once on each storage engine:
 * the in-memory store must give the same semantics as RocksDB.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(StorageEngine.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DeliveryE2ETest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  /** Declares the class's argument, which start() receives: one broker per engine. */
  @Parameter
  StorageEngine engine;
  @TempDir
  static Path dir;
  static TestBroker broker;

  @BeforeParameterizedClassInvocation
  static void start(StorageEngine engine) {
    broker = TestBroker.start(engine, dir.resolve("data-" + engine.configName()), Map.of());
  }

  @AfterParameterizedClassInvocation
  static void stop() {
    broker.close();
  }

  private PublishResponse publish(PublishRequest request) throws Exception {
    return broker.producer.publish(request).toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void deliversNoMessageBeforeItsDueTimeAndInDueOrder() throws Exception {
    String topic = "due-order";
    try (Subscription sub = Subscription.open(broker, topic, "g", 100)) {
      long publishedAt = System.currentTimeMillis();
      PublishResponse response = publish(request(message(topic, "c", 900), message(topic, "a", 300),
          message(topic, "b", 600), message(topic, "d", 900)));
      assertEquals(4, response.getMessageIdsCount());
      List<Subscription.Received> got = sub.take(4, WAIT);
      assertEquals(List.of("a", "b", "c", "d"),
          got.stream().map(r -> r.delivery().getPayload().toStringUtf8()).toList());
      for (Subscription.Received r : got) {
        assertTrue(r.receivedAtMs() >= r.delivery().getDueAtUnixMs(),
            "delivered " + (r.delivery().getDueAtUnixMs() - r.receivedAtMs()) + "ms early");
        assertTrue(r.delivery().getDueAtUnixMs() >= publishedAt + 300);
        assertEquals(1, r.delivery().getAttempt());
      }
      sub.ack(got.stream().map(Subscription.Received::delivery).toArray(Delivery[]::new));
    }
  }

  @Test
  void eachGroupGetsEveryMessageAndConsumersInAGroupShareThem() throws Exception {
    String topic = "fan-out";
    try (Subscription a1 = Subscription.open(broker, topic, "a", 100);
        Subscription a2 = Subscription.open(broker, topic, "a", 100);
        Subscription b = Subscription.open(broker, topic, "b", 100)) {
      for (Subscription s : List.of(a1, a2, b)) {
        s.awaitSubscribed(WAIT);
      }
      for (int i = 0; i < 10; i++) {
        publish(request(message(topic, "m" + i, 0)));
      }
      List<Subscription.Received> fromB = b.take(10, WAIT);
      assertEquals(10, fromB.stream().map(r -> r.delivery().getMessageId()).distinct().count());
      Set<String> inA = new HashSet<>();
      long deadline = System.currentTimeMillis() + WAIT.toMillis();
      int fromA1 = 0;
      while (inA.size() < 10 && System.currentTimeMillis() < deadline) {
        Subscription.Received r = a1.received.poll(20, TimeUnit.MILLISECONDS);
        if (r != null) {
          fromA1++;
          assertTrue(inA.add(r.delivery().getMessageId()), "group a got a message twice");
        }
        r = a2.received.poll(20, TimeUnit.MILLISECONDS);
        if (r != null) {
          assertTrue(inA.add(r.delivery().getMessageId()), "group a got a message twice");
        }
      }
      assertEquals(10, inA.size());
      assertTrue(fromA1 > 0 && fromA1 < 10, "round robin should use both consumers, a1 got " + fromA1);
    }
  }

  @Test
  void universalSubscriberGetsACopyAndItsAckDeletesWhenThereAreNoGroups() throws Exception {
    String topic = "universal";
    try (Subscription u1 = Subscription.open(broker, topic, "", 10);
        Subscription u2 = Subscription.open(broker, topic, "", 10)) {
      u1.awaitSubscribed(WAIT);
      u2.awaitSubscribed(WAIT);
      publish(request(message(topic, "hello", 100)));
      Delivery d1 = u1.next(WAIT).delivery();
      Delivery d2 = u2.next(WAIT).delivery();
      assertEquals(d1.getMessageId(), d2.getMessageId());
      u1.ack(d1);
      awaitPending(topic, 0);
    }
  }

  @Test
  void redeliversAnUnackedMessageAfterTheInFlightTimeout() throws Exception {
    String topic = "redeliver";
    try (Subscription sub = Subscription.open(broker, topic, "g", 10)) {
      publish(request(message(topic, "x", 0)));
      Subscription.Received first = sub.next(WAIT);
      Subscription.Received second = sub.next(WAIT);
      assertEquals(first.delivery().getMessageId(), second.delivery().getMessageId());
      assertEquals(2, second.delivery().getAttempt());
      assertNotEquals(first.delivery().getDeliveryTag(), second.delivery().getDeliveryTag());
      assertTrue(second.receivedAtMs() - first.receivedAtMs() >= 1900, "redelivered before the in-flight timeout");
      sub.ack(second.delivery());
      awaitPending(topic, 0);
    }
  }

  @Test
  void nackedMessageComesBackAfterItsRequeueDelay() throws Exception {
    String topic = "nack";
    try (Subscription sub = Subscription.open(broker, topic, "g", 10)) {
      publish(request(message(topic, "x", 0)));
      Subscription.Received first = sub.next(WAIT);
      sub.nack(first.delivery(), 500);
      Subscription.Received again = sub.next(WAIT);
      assertEquals(first.delivery().getMessageId(), again.delivery().getMessageId());
      assertTrue(again.receivedAtMs() - first.receivedAtMs() >= 500, "requeued before its delay");
      assertEquals(2, again.delivery().getAttempt());
      sub.ack(again.delivery());
    }
  }

  @Test
  void ackedMessageIsDeletedAndNotRedelivered() throws Exception {
    String topic = "acked";
    try (Subscription sub = Subscription.open(broker, topic, "g", 10)) {
      publish(request(message(topic, "x", 0)));
      sub.ack(sub.next(WAIT).delivery());
      sub.expectNothing(Duration.ofMillis(2500));
      awaitPending(topic, 0);
    }
  }

  @Test
  void messageDueWithNoSubscriberWaitsForTheFirstGroup() throws Exception {
    String topic = "waits";
    publish(request(message(topic, "early", 0)));
    Thread.sleep(300); // a sleep: the message falls due while the topic has no group, which nothing shows
    try (Subscription sub = Subscription.open(broker, topic, "late-group", 10)) {
      assertEquals("early", sub.next(WAIT).delivery().getPayload().toStringUtf8());
    }
  }

  @Test
  void expiredMessageIsNeverDeliveredAndIsRemoved() throws Exception {
    String topic = "ttl";
    publish(request(message(topic, "short", 0).setTtlMs(100), message(topic, "long", 0).setTtlMs(60_000)));
    awaitPending(topic, 1);
    try (Subscription sub = Subscription.open(broker, topic, "g", 10)) {
      assertEquals("long", sub.next(WAIT).delivery().getPayload().toStringUtf8());
      sub.expectNothing(Duration.ofMillis(300));
    }
  }

  @Test
  void republishingAPendingKeyReturnsTheSameMessage() throws Exception {
    String topic = "dedup";
    PublishResponse first = publish(request(message(topic, "one", 60_000).setKey("order-1")));
    PublishResponse second = publish(request(message(topic, "two", 60_000).setKey("order-1"),
        message(topic, "three", 60_000).setKey("order-2")));
    assertEquals(first.getMessageIds(0), second.getMessageIds(0));
    assertTrue(second.getDuplicate(0));
    assertFalse(second.getDuplicate(1));
    awaitPending(topic, 2);
  }

  @Test
  void cancelByKeyAndByIdRemovesThePendingMessage() throws Exception {
    String topic = "cancel";
    PublishResponse published = publish(request(message(topic, "k", 500).setKey("k1"), message(topic, "i", 500)));
    CancelResponse byKey = broker.producer.cancel(CancelRequest.newBuilder().setTopic(topic).setKey("k1").build())
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertTrue(byKey.getExisted());
    assertEquals(published.getMessageIds(0), byKey.getMessageId());
    CancelResponse byId = broker.producer.cancel(CancelRequest.newBuilder().setTopic(topic)
        .setMessageId(published.getMessageIds(1)).build()).toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertTrue(byId.getExisted());
    CancelResponse again = broker.producer.cancel(CancelRequest.newBuilder().setTopic(topic).setKey("k1").build())
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertFalse(again.getExisted());
    try (Subscription sub = Subscription.open(broker, topic, "g", 10)) {
      sub.expectNothing(Duration.ofMillis(1000));
    }
    awaitPending(topic, 0);
  }

  @Test
  void messageMovesToTheDeadLetterTopicAfterMaxDeliveries() throws Exception {
    String topic = "poison";
    try (Subscription sub = Subscription.open(broker, topic, "g", 10);
        Subscription dead = Subscription.open(broker, topic + ".dead-letter", "ops", 10)) {
      publish(request(message(topic, "bad", 0)));
      Delivery d = null;
      for (int i = 1; i <= 20; i++) {
        d = sub.next(WAIT).delivery();
        assertEquals(i, d.getAttempt());
        sub.nack(d, 0);
      }
      Delivery dl = dead.next(WAIT).delivery();
      assertEquals("bad", dl.getPayload().toStringUtf8());
      assertTrue(dl.getHeadersMap().get("futureq-dead-letter-reason").contains("max-deliveries 20"));
      dead.ack(dl);
      sub.expectNothing(Duration.ofMillis(300));
      awaitPending(topic, 0);
    }
  }

  @Test
  void deadLettersOfATopicWithTheLongestNameCanBeReadAndInspected() throws Exception {
    String topic = "long-" + "t".repeat(244);
    String deadLetterTopic = topic + ".dead-letter";
    try (Subscription sub = Subscription.open(broker, topic, "g", 10);
        Subscription dead = Subscription.open(broker, deadLetterTopic, "ops", 10)) {
      publish(request(message(topic, "bad", 0)));
      for (int i = 1; i <= 20; i++) {
        sub.nack(sub.next(WAIT).delivery(), 0);
      }
      Delivery dl = dead.next(WAIT).delivery();
      assertEquals(deadLetterTopic, dead.subscribed.get(10, TimeUnit.SECONDS).getTopic());
      assertEquals("bad", dl.getPayload().toStringUtf8());
      assertEquals(1, stats(deadLetterTopic).getPending());
      dead.ack(dl);
      awaitPending(deadLetterTopic, 0);
      awaitPending(topic, 0);
    }
  }

  @Test
  void aMessageDueMonthsAheadDoesNotStopNearerOnes() throws Exception {
    String topic = "far-future";
    try (Subscription sub = Subscription.open(broker, topic, "g", 10)) {
      publish(request(message(topic, "far", Duration.ofDays(60).toMillis()).setTtlMs(Duration.ofDays(90).toMillis())));
      // a sleep: the scheduler arms its timer for the far message before the near one comes (the case under
      // test), which nothing shows
      Thread.sleep(200);
      publish(request(message(topic, "near", 200)));
      assertEquals("near", sub.next(WAIT).delivery().getPayload().toStringUtf8());
      sub.expectNothing(Duration.ofMillis(300));
    }
  }

  @Test
  void statsShowPendingGroupsAndInFlight() throws Exception {
    String topic = "stats";
    try (Subscription sub = Subscription.open(broker, topic, "g", 10)) {
      publish(request(message(topic, "now", 0), message(topic, "later", 60_000)));
      sub.next(WAIT);
      TopicStats stats = stats(topic);
      assertEquals(2, stats.getPending());
      assertEquals(1, stats.getDueNow());
      assertEquals(1, stats.getGroupsCount());
      assertEquals("g", stats.getGroups(0).getName());
      assertEquals(1, stats.getGroups(0).getConsumers());
      assertEquals(1, stats.getGroups(0).getInFlight());
      assertTrue(stats.getNextDueUnixMs() > 0);
    }
  }

  private TopicStats stats(String topic) throws Exception {
    return broker.admin.getTopicStats(GetTopicStatsRequest.newBuilder().setTopic(topic).build())
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private void awaitPending(String topic, long expected) {
    Await.until("topic " + topic + " to have " + expected + " pending", WAIT, () -> stats(topic).getPending(),
        pending -> pending == expected);
  }
}
