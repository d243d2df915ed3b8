package io.futureq.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.futureq.api.grpc.GetTopicStatsRequest;
import io.futureq.api.grpc.TopicStats;
import io.futureq.e2e.BrokerExtension;
import io.futureq.testing.Await;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Consumers that take {@link ConsumerOptions#defaults()}, auto-acking or acking each message from the handler,
 * drain a burst due at one instant: every message reaches the group, and every ack reaches the broker (the topic
 * is empty after). The speed is the bench's to measure ({@code bin/futureq bench --burst --max-in-flight 0}).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ConsumerDefaultsE2ETest {
  private static final int BURST = 20_000;
  private static final Duration WAIT = Duration.ofSeconds(60);
  // Long enough that no delivery of the burst times out on a loaded machine: every message comes once.
  @RegisterExtension
  static final BrokerExtension broker =
      BrokerExtension.withSettings(Map.of("futureq.group.in-flight-timeout", "60s"));
  static FutureQClient client;

  @BeforeAll
  static void start() {
    client = FutureQClient.builder().target(broker.server()).build();
  }

  @AfterAll
  static void stop() {
    client.close();
  }

  @Test
  void autoAckingConsumersWithTheDefaultsDrainABurst() throws Exception {
    drain("burst-auto", ConsumerOptions.defaults(), m -> {});
  }

  @Test
  void consumersAckingEachMessageWithTheDefaultsDrainABurst() throws Exception {
    drain("burst-manual", ConsumerOptions.defaults().withManualAck(), ReceivedMessage::ack);
  }

  @Test
  void consumersWithASmallCreditAckingEachMessageDrainABurstRefilledInBatches() throws Exception {
    // The broker refills a credit of 10 once 5 came back, not at each ack: nothing waits for a refill forever.
    drain("burst-small-credit", ConsumerOptions.defaults().withMaxInFlight(10).withManualAck(), ReceivedMessage::ack);
  }

  private static void drain(String topic, ConsumerOptions options, Consumer<ReceivedMessage> ack) throws Exception {
    Set<String> seen = ConcurrentHashMap.newKeySet();
    List<FutureQConsumer> consumers = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      consumers.add(client.subscribe(topic, "g", m -> {
        seen.add(m.messageId());
        ack.accept(m);
      }, options));
    }
    for (FutureQConsumer consumer : consumers) {
      consumer.subscribed().get(30, TimeUnit.SECONDS);
    }
    FutureQProducer producer = client.producer(ProducerOptions.defaults());
    long dueAt = System.currentTimeMillis() + 3_000;
    List<CompletableFuture<SendResult>> sent = new ArrayList<>();
    for (int i = 0; i < BURST; i++) {
      sent.add(producer.send(OutgoingMessage.to(topic).payload("x".repeat(100)).at(Instant.ofEpochMilli(dueAt))
          .build()));
    }
    CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

    Await.until(BURST + " messages delivered", WAIT, () -> seen.size() == BURST, () -> seen.size() + " delivered");
    Await.until("every ack applied", WAIT, () -> stats(topic).getPending(), pending -> pending == 0);
    assertEquals(0, stats(topic).getGroups(0).getInFlight());
    consumers.forEach(FutureQConsumer::close);
  }

  private static TopicStats stats(String topic) throws Exception {
    return broker.admin().getTopicStats(GetTopicStatsRequest.newBuilder().setTopic(topic).build())
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
  }
}
