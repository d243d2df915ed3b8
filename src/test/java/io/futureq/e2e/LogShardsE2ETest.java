package io.futureq.e2e;

import static io.futureq.e2e.Messages.message;
import static io.futureq.e2e.Messages.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.api.grpc.Delivery;
import io.futureq.api.grpc.ListTopicsRequest;
import io.futureq.api.grpc.PublishRequest;
import io.futureq.api.grpc.PublishResponse;
import io.futureq.api.grpc.TopicSummary;
import io.futureq.app.StartupException;
import io.futureq.client.FutureQClient;
import io.futureq.client.FutureQProducer;
import io.futureq.client.OutgoingMessage;
import io.futureq.client.ProducerOptions;
import io.futureq.client.SendResult;
import io.futureq.storage.OrderedStore;
import io.futureq.storage.StorageKeys;
import io.futureq.testing.Await;
import io.futureq.testing.ShardTopics;
import io.grpc.Status;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A standalone broker whose event log has three shards: each topic in its own shard's log and store. */
class LogShardsE2ETest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final int SHARDS = 3;
  private static final Map<String, Object> THREE_SHARDS = Map.of("futureq.cluster.log-shards", SHARDS);

  @TempDir
  Path dir;

  /** A topic name starting with {@code prefix} that belongs to {@code shard}. */
  static String topicIn(int shard, String prefix) {
    return ShardTopics.in(shard, SHARDS, prefix);
  }

  private static PublishResponse publish(TestBroker broker, PublishRequest request)
      throws Exception {
    return broker.producer.publish(request).toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void eachShardsTopicsArePublishedDeliveredListedAndKeptInTheirShardsStore() throws Exception {
    try (TestBroker broker = TestBroker.start(dir.resolve("data"), THREE_SHARDS)) {
      for (int shard = 0; shard < SHARDS; shard++) {
        String topic = topicIn(shard, "each-");
        try (Subscription sub = Subscription.open(broker, topic, "g", 10).awaitSubscribed(WAIT)) {
          PublishResponse published = publish(broker, request(message(topic, "to shard " + shard, 50)));
          assertFalse(published.hasError(), published.toString());
          Delivery d = sub.next(WAIT).delivery();
          assertEquals("to shard " + shard, d.getPayload().toStringUtf8());
          sub.ack(d);
        }
        try (OrderedStore.View view = broker.node.stores().get(shard).view()) {
          assertTrue(view.get(OrderedStore.Space.INDEX, StorageKeys.topicMeta(topic)) != null,
              topic + " is in shard " + shard + "'s store");
        }
      }
      assertTrue(Files.isDirectory(dir.resolve("data/shard-1")) && Files.isDirectory(dir.resolve("data/shard-2")));
      List<String> listed = broker.admin.listTopics(ListTopicsRequest.getDefaultInstance()).toCompletableFuture()
          .get(10, TimeUnit.SECONDS).getTopicsList().stream().map(TopicSummary::getName).toList();
      assertEquals(List.of(topicIn(0, "each-"), topicIn(1, "each-"), topicIn(2, "each-")).stream().sorted().toList(),
          listed);
    }
  }

  @Test
  void aRequestWhoseTopicsLieInTwoShardsIsRefusedWholeNamingTheShards() throws Exception {
    try (TestBroker broker = TestBroker.start(dir.resolve("data"), THREE_SHARDS)) {
      String first = topicIn(0, "span-");
      String second = topicIn(2, "span-");
      ExecutionException failed = assertThrows(ExecutionException.class,
          () -> publish(broker, request(message(first, "a", 0), message(second, "b", 0))));
      Status refused = Status.fromThrowable(failed.getCause());
      assertEquals(Status.Code.INVALID_ARGUMENT, refused.getCode(), refused.toString());
      assertTrue(refused.getDescription().contains("log shard 0: " + first)
          && refused.getDescription().contains("log shard 2: " + second), refused.getDescription());
      assertTrue(broker.admin.listTopics(ListTopicsRequest.getDefaultInstance()).toCompletableFuture()
          .get(10, TimeUnit.SECONDS).getTopicsList().isEmpty(), "nothing of the refused request was stored");
      String sameShard = topicIn(2, "other-");
      assertFalse(publish(broker, request(message(second, "b", 0), message(sameShard, "c", 0))).hasError(),
          "topics of one shard still go in one request");
    }
  }

  @Test
  void theJavaClientsProducerBatchesEachShardsTopicsApartAndEverySendSucceeds() throws Exception {
    try (TestBroker broker = TestBroker.start(dir.resolve("data"), THREE_SHARDS);
        FutureQClient client = FutureQClient.builder().target("127.0.0.1:" + broker.node.grpcPort()).build()) {
      Await.until("the client to learn the shard count", WAIT,
          () -> client.clusterInfo().get(10, TimeUnit.SECONDS).getLogShards() == SHARDS);
      FutureQProducer producer = client.producer(ProducerOptions.defaults().withLinger(Duration.ofMillis(200)));
      List<CompletableFuture<SendResult>> sends = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        // Every shard's topics in turn, all within one linger: one request would span three shards.
        sends.add(producer.send(OutgoingMessage.to(topicIn(i % SHARDS, "batched-")).payload("m" + i).build()));
      }
      for (CompletableFuture<SendResult> send : sends) {
        send.get(20, TimeUnit.SECONDS);
      }
      producer.close();
    }
  }

  @Test
  void aMessageMovesToTheDeadLetterTopicOfItsShard() throws Exception {
    try (TestBroker broker = TestBroker.start(dir.resolve("data"), THREE_SHARDS)) {
      String topic = topicIn(1, "poison-");
      try (Subscription sub = Subscription.open(broker, topic, "g", 10);
          Subscription dead = Subscription.open(broker, topic + ".dead-letter", "ops", 10)) {
        publish(broker, request(message(topic, "bad", 0)));
        for (int i = 1; i <= 20; i++) {
          sub.nack(sub.next(WAIT).delivery(), 0);
        }
        Delivery dl = dead.next(WAIT).delivery();
        assertEquals("bad", dl.getPayload().toStringUtf8());
        dead.ack(dl);
      }
    }
  }

  @Test
  void messagesOfEveryShardSurviveARestartAndTheCountCannotChange() throws Exception {
    Path data = dir.resolve("data");
    try (TestBroker broker = TestBroker.start(data, THREE_SHARDS)) {
      for (int shard = 0; shard < SHARDS; shard++) {
        publish(broker, request(message(topicIn(shard, "kept-"), "kept " + shard, 1_500)));
      }
    }
    StartupException refused = assertThrows(StartupException.class,
        () -> TestBroker.start(data, Map.of("futureq.cluster.log-shards", 2)).close());
    assertTrue(refused.getMessage().contains("log-shards is 2") && refused.getMessage().contains("created with 3"),
        refused.getMessage());
    try (TestBroker broker = TestBroker.start(data, THREE_SHARDS)) {
      for (int shard = 0; shard < SHARDS; shard++) {
        try (Subscription sub = Subscription.open(broker, topicIn(shard, "kept-"), "g", 10)) {
          assertEquals("kept " + shard, sub.next(WAIT).delivery().getPayload().toStringUtf8());
        }
      }
    }
  }
}
