package io.futureq.e2e;

import static io.futureq.e2e.Messages.message;
import static io.futureq.e2e.Messages.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.futureq.api.grpc.ConsumerClient;
import io.futureq.api.grpc.ConsumerFrame;
import io.futureq.api.grpc.ProducerClient;
import io.futureq.api.grpc.SubscribeInit;
import io.futureq.testing.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.grpc.GrpcClientSettings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** GET /metrics as Prometheus scrapes it, from a broker process. */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class MetricsE2ETest {
  private static final Duration START = Duration.ofSeconds(60);
  /** Longer than Kamon's tick (5 s), after which the scrape carries what was recorded. */
  private static final Duration SCRAPE_WAIT = Duration.ofSeconds(30);
  static ActorSystem<Void> clients;

  @TempDir
  Path dir;

  @BeforeAll
  static void startClients() {
    clients = ActorSystem.create(Behaviors.empty(), "metrics-test-clients",
        ConfigFactory.parseString("pekko.actor.provider = local"));
  }

  @AfterAll
  static void stopClients() {
    clients.terminate();
  }

  @Test
  void theScrapeHasAContentTypeAndHelpForEveryFamilyAndLatenessBucketsBelowAMillisecond() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir, dir.resolve("data"), "").awaitReady(START)) {
      GrpcClientSettings settings = GrpcClientSettings.connectToServiceAt("127.0.0.1", broker.grpcPort, clients)
          .withTls(false);
      ProducerClient producer = ProducerClient.create(settings, clients);
      ConsumerClient consumer = ConsumerClient.create(settings, clients);
      Subscription sub = new Subscription(clients, consumer, ConsumerFrame.newBuilder()
          .setInit(SubscribeInit.newBuilder().setTopic("scraped").setGroup("g")).build());
      sub.subscribed.get(30, TimeUnit.SECONDS);
      producer.publish(request(message("scraped", "a", 0), message("scraped", "b", 50)))
          .toCompletableFuture().get(30, TimeUnit.SECONDS);
      List<Subscription.Received> got = sub.take(2, Duration.ofSeconds(30));
      sub.ack(got.get(0).delivery(), got.get(1).delivery());

      // Every family is exported from start-up, so its presence proves nothing: wait for the tick that carries the
      // two acks (recorded after the deliveries and their lateness, so that tick carries those too).
      HttpResponse<String> scrape = scrapeUntil(broker.metricsPort(),
          Pattern.compile("(?m)^futureq_acked_total\\{[^}]*topic=\"scraped\"[^}]*} 2\\.0$"));
      assertEquals("text/plain; version=0.0.4; charset=utf-8",
          scrape.headers().firstValue("Content-Type").orElse("none"), scrape.headers().toString());
      assertEquals(List.of(), PrometheusText.problems(scrape.body()), scrape.body());
      promtoolAccepts(scrape.body());
      for (String family : List.of("futureq_published_total", "futureq_delivered_total", "futureq_acked_total",
          "futureq_in_flight", "futureq_pending", "futureq_delivery_lateness_seconds",
          "futureq_publish_latency_seconds", "futureq_storage_commit_latency_seconds")) {
        assertTrue(scrape.body().contains("# HELP " + family + " "), family + " has no HELP:\n" + scrape.body());
      }
      double smallest = smallestBucket(scrape.body(), "futureq_delivery_lateness_seconds_bucket");
      assertTrue(smallest < 0.001, "the smallest lateness bucket is " + smallest + " s:\n" + scrape.body());
      sub.close();
      producer.close();
      consumer.close();
    }
  }

  @Test
  void pendingGaugesAndTheNodesOwnFamiliesAreThereFromStartUpBeforeAnyTraffic() throws Exception {
    Path data = dir.resolve("data");
    try (BrokerProcess broker = BrokerProcess.start(dir, data, "").awaitReady(START)) {
      ProducerClient producer = ProducerClient.create(GrpcClientSettings.connectToServiceAt("127.0.0.1",
          broker.grpcPort, clients).withTls(false), clients);
      producer.publish(request(message("kept", "1", 3_600_000), message("kept", "2", 3_600_000),
          message("kept", "3", 3_600_000))).toCompletableFuture().get(30, TimeUnit.SECONDS);
      producer.close();
      broker.process.destroy();
      assertEquals(0, broker.awaitExit(START), broker.output());
    }
    try (BrokerProcess restarted = BrokerProcess.start(dir, data, "").awaitReady(START)) {
      String gauge = "futureq_pending{topic=\"kept\"} 3.0";
      HttpResponse<String> scrape = scrapeUntil(restarted.metricsPort(), gauge);
      assertTrue(scrape.body().contains(gauge), scrape.body());
      // The node's own families, with no traffic since start-up: build, JVM and process, the store. Sampled once the
      // node is wired, which may be a Kamon tick after the pending gauges (set before the actor system starts).
      scrape = scrapeUntil(restarted.metricsPort(), "futureq_storage_write_stopped");
      for (String family : List.of("futureq_build_info", "futureq_jvm_heap_used_bytes", "futureq_jvm_heap_max_bytes",
          "futureq_jvm_threads", "futureq_jvm_gc_collections", "futureq_process_cpu_seconds",
          "futureq_process_open_fds", "futureq_process_uptime_seconds", "futureq_storage_sst_files_bytes",
          "futureq_storage_live_data_bytes", "futureq_storage_write_stopped")) {
        assertTrue(scrape.body().contains("# HELP " + family + " "), family + " has no HELP:\n" + scrape.body());
        assertTrue(Pattern.compile("(?m)^" + family + "(\\{[^}]*})? [0-9.eE+-]+$").matcher(scrape.body()).find(),
            family + " has no sample:\n" + scrape.body());
      }
      assertTrue(Pattern.compile("(?m)^futureq_storage_sst_files_bytes [1-9]").matcher(scrape.body()).find(),
          "the restarted store has SST files:\n" + scrape.body());
      assertTrue(scrape.body().contains("futureq_storage_write_stopped 0.0"), scrape.body());
      assertEquals(List.of(), PrometheusText.problems(scrape.body()), scrape.body());
    }
  }

  private static HttpResponse<String> scrapeUntil(int port, String wanted) throws Exception {
    return scrapeUntil(port, Pattern.compile(Pattern.quote(wanted)));
  }

  private static HttpResponse<String> scrapeUntil(int port, Pattern wanted) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    String[] last = {""};
    return Await.value(wanted + " in a scrape", SCRAPE_WAIT, () -> {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
          .build(), HttpResponse.BodyHandlers.ofString());
      last[0] = r.body();
      return wanted.matcher(r.body()).find() ? r : null;
    }, () -> "last scrape:\n" + last[0]);
  }

  private static double smallestBucket(String scrape, String bucket) {
    Matcher m = Pattern.compile(Pattern.quote(bucket) + "\\{[^}]*le=\"([^\"]+)\"").matcher(scrape);
    double smallest = Double.POSITIVE_INFINITY;
    while (m.find()) {
      if (!m.group(1).equals("+Inf")) {
        smallest = Math.min(smallest, Double.parseDouble(m.group(1)));
      }
    }
    return smallest;
  }

  /** promtool is the Prometheus project's own check; it runs where it is installed (Debian: prometheus). */
  private void promtoolAccepts(String scrape) throws Exception {
    Path promtool = Arrays.stream(System.getenv().getOrDefault("PATH", "").split(":"))
        .map(d -> Path.of(d, "promtool")).filter(Files::isExecutable).findFirst().orElse(null);
    if (promtool == null) {
      return;
    }
    Path file = dir.resolve("scrape.txt");
    Files.writeString(file, scrape);
    Process p = new ProcessBuilder(promtool.toString(), "check", "metrics").redirectInput(file.toFile())
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), "promtool check metrics:\n" + out);
  }
}
