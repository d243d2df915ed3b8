package io.futureq.e2e;

import static io.futureq.e2e.Messages.message;
import static io.futureq.e2e.Messages.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.futureq.api.grpc.ConsumerClient;
import io.futureq.api.grpc.ConsumerFrame;
import io.futureq.api.grpc.Delivery;
import io.futureq.api.grpc.ProducerClient;
import io.futureq.api.grpc.SubscribeInit;
import io.futureq.cli.FutureqCommand;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.grpc.GrpcClientSettings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The per-group series a Prometheus operator alerts on, scraped from a broker process. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class GroupMetricsE2ETest {
  private static final Duration START = Duration.ofSeconds(60);
  private static final Duration WITHIN = Duration.ofSeconds(30);
  /** Kamon's tick, and so the group sampler's, at 1 s instead of 5 s: each change shows sooner. */
  private static final String FAST_TICK = "kamon.metric.tick-interval = 1s";
  static ActorSystem<Void> clients;

  @TempDir
  Path dir;

  @BeforeAll
  static void startClients() {
    clients = ActorSystem.create(Behaviors.empty(), "group-metrics-test-clients",
        ConfigFactory.parseString("pekko.actor.provider = local"));
  }

  @AfterAll
  static void stopClients() {
    clients.terminate();
  }

  @Test
  void aGroupsLagShowsItsBacklogAndFallsAsItsConsumerAcksAndItsSeriesGoWhenTheGroupIsDeleted() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir, dir.resolve("data"), FAST_TICK).awaitReady(START)) {
      GrpcClientSettings settings = GrpcClientSettings.connectToServiceAt("127.0.0.1", broker.grpcPort, clients)
          .withTls(false);
      ProducerClient producer = ProducerClient.create(settings, clients);
      ConsumerClient consumer = ConsumerClient.create(settings, clients);
      Subscription sub = subscribe(consumer, "lagged", "billing", 100);
      producer.publish(request(message("lagged", "1", 0), message("lagged", "2", 0), message("lagged", "3", 0),
          message("lagged", "4", 0), message("lagged", "5", 0), message("lagged", "6", 3_600_000)))
          .toCompletableFuture().get(30, TimeUnit.SECONDS);
      List<Subscription.Received> got = sub.take(5, WITHIN);
      int port = broker.metricsPort();
      String lag = "futureq_group_lag{topic=\"lagged\",group=\"billing\"}";
      String age = "futureq_group_oldest_unacked_age_seconds{topic=\"lagged\",group=\"billing\"}";

      // Five due and delivered but not acked, one scheduled an hour ahead: the lag of `futureq stats`.
      String scrape = Scrapes.until(port, "lag 6 with 5 in flight", WITHIN, Scrapes.has(lag, 6)
          .and(Scrapes.has("futureq_in_flight{topic=\"lagged\",group=\"billing\"}", 5)));
      assertTrue(Scrapes.value(scrape, age).orElse(0) > 0, scrape);
      assertEquals(0, Scrapes.value(scrape, "futureq_dead_lettered_total{topic=\"lagged\",group=\"billing\"}")
          .orElse(-1), scrape);
      sub.ack(delivery(got, 0), delivery(got, 1), delivery(got, 2));
      Scrapes.until(port, "lag 3 after three acks", WITHIN, Scrapes.has(lag, 3));
      sub.ack(delivery(got, 3), delivery(got, 4));
      scrape = Scrapes.until(port, "lag 1 (the scheduled one) and no unacked due message", WITHIN,
          Scrapes.has(lag, 1).and(Scrapes.has(age, 0)));
      assertEquals(5, Scrapes.value(scrape, "futureq_acked_total{topic=\"lagged\",group=\"billing\"}").orElse(-1),
          scrape);

      sub.close();
      assertEquals(0, FutureqCommand.commandLine().execute("group", "delete", "--server",
          "127.0.0.1:" + broker.grpcPort, "--topic", "lagged", "--group", "billing"));
      Scrapes.until(port, "no series of the deleted group", WITHIN,
          s -> !s.contains("group=\"billing\"") && s.contains("futureq_pending{topic=\"lagged\"}"));
      producer.close();
      consumer.close();
    }
  }

  @Test
  void groupsBeyondTheLimitShareTheirTopicsOverflowSeriesAndAreCounted() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir, dir.resolve("data"),
        FAST_TICK + "\nfutureq.metrics.max-group-series = 1").awaitReady(START)) {
      GrpcClientSettings settings = GrpcClientSettings.connectToServiceAt("127.0.0.1", broker.grpcPort, clients)
          .withTls(false);
      ConsumerClient consumer = ConsumerClient.create(settings, clients);
      Subscription first = subscribe(consumer, "crowded", "a", 10);
      int port = broker.metricsPort();
      Scrapes.until(port, "group a's own lag series", WITHIN,
          Scrapes.has("futureq_group_lag{topic=\"crowded\",group=\"a\"}", 0));
      Subscription second = subscribe(consumer, "crowded", "b", 10);
      ProducerClient producer = ProducerClient.create(settings, clients);
      producer.publish(request(message("crowded", "x", 0))).toCompletableFuture().get(30, TimeUnit.SECONDS);
      first.take(1, WITHIN);
      second.take(1, WITHIN);

      String scrape = Scrapes.until(port, "b's delivery in the overflow series, b counted over the limit", WITHIN,
          Scrapes.has("futureq_delivered_total{topic=\"crowded\",group=\"_other\"}", 1)
              .and(Scrapes.has("futureq_group_series_over_limit", 1)));
      assertEquals(1, Scrapes.value(scrape, "futureq_delivered_total{topic=\"crowded\",group=\"a\"}").orElse(-1),
          scrape);
      assertTrue(!scrape.contains("group=\"b\""), scrape);
      first.close();
      second.close();
      producer.close();
      consumer.close();
    }
  }

  private static Subscription subscribe(ConsumerClient consumer, String topic, String group, int maxInFlight)
      throws Exception {
    return new Subscription(clients, consumer, ConsumerFrame.newBuilder().setInit(SubscribeInit.newBuilder()
        .setTopic(topic).setGroup(group).setMaxInFlight(maxInFlight)).build()).awaitSubscribed(WITHIN);
  }

  private static Delivery delivery(List<Subscription.Received> got, int i) {
    return got.get(i).delivery();
  }
}
