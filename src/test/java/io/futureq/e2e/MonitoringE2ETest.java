package io.futureq.e2e;

import static io.futureq.e2e.Messages.message;
import static io.futureq.e2e.Messages.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.typesafe.config.ConfigFactory;
import io.futureq.api.grpc.ConsumerClient;
import io.futureq.api.grpc.ConsumerFrame;
import io.futureq.api.grpc.ProducerClient;
import io.futureq.api.grpc.SubscribeInit;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.grpc.GrpcClientSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Grafana dashboard (docs/grafana/futureq.json) and the alert rules (docs/prometheus/alerts.yml) use only series
 * a broker exports, and every one of them is there from start-up: a one-node cluster (so that its Raft series are
 * there) that stored a topic and a group is restarted and scraped before any traffic.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class MonitoringE2ETest {
  static final Path DASHBOARD = Path.of("docs", "grafana", "futureq.json");
  static final Path ALERTS = Path.of("docs", "prometheus", "alerts.yml");
  private static final Duration START = Duration.ofSeconds(90);
  private static final Duration WITHIN = Duration.ofSeconds(30);
  private static final Pattern METRIC = Pattern.compile("\\b(futureq_[a-zA-Z0-9_]+)\\b");

  @TempDir
  Path dir;

  @Test
  void everySeriesTheDashboardAndTheAlertsUseIsInTheScrapeOfAnIdleRestartedBroker() throws Exception {
    Set<String> used = new TreeSet<>(metricsIn(dashboardQueries()));
    used.addAll(metricsIn(alertExpressions()));
    assertTrue(used.size() > 20, "too few metrics found in the dashboard and alerts: " + used);
    int management = TestPorts.free();
    String config = String.join("\n",
        "kamon.metric.tick-interval = 1s",
        "futureq.cluster.enabled = true",
        "futureq.cluster.discovery.contact-points = [\"127.0.0.1:" + management + "\"]",
        "futureq.cluster.discovery.required-contact-points = 1",
        "futureq.raft.storage-dir = \"" + dir.resolve("raft") + "\"",
        "futureq.raft.peers { node-1 = \"127.0.0.1:" + TestPorts.free() + "\" }");
    Path data = dir.resolve("data");
    ActorSystem<Void> clients = ActorSystem.create(Behaviors.empty(), "monitoring-test-clients",
        ConfigFactory.parseString("pekko.actor.provider = local"));
    try {
      try (BrokerProcess broker = BrokerProcess.startWithManagementPort(dir, data, management, config)
          .awaitReady(START)) {
        storeATopicAndAGroup(clients, broker.grpcPort);
        broker.process.destroy();
        assertEquals(0, broker.awaitExit(START), broker.output());
      }
      try (BrokerProcess idle = BrokerProcess.startWithManagementPort(dir, data, management, config)
          .awaitReady(START)) {
        String scrape = Scrapes.until(idle.metricsPort(), "the group's lag and the Raft term", WITHIN,
            s -> s.contains("futureq_group_lag{topic=\"orders\",group=\"billing\"} 1.0")
                && s.contains("futureq_raft_term{shard=\"0\"} "));
        Set<String> missing = new TreeSet<>(used);
        missing.removeAll(Scrapes.sampleNames(scrape));
        assertEquals(Set.of(), missing, "series the dashboard or alerts use that the idle broker does not export; "
            + "its scrape:\n" + scrape);
        assertEquals(List.of(), PrometheusText.problems(scrape), scrape);
      }
    } finally {
      clients.terminate();
    }
  }

  /** One message due now (delivered and acked by group billing), one due in an hour: the topic stays hosted. */
  private static void storeATopicAndAGroup(ActorSystem<Void> clients, int grpcPort) throws Exception {
    GrpcClientSettings settings = GrpcClientSettings.connectToServiceAt("127.0.0.1", grpcPort, clients)
        .withTls(false);
    ConsumerClient consumer = ConsumerClient.create(settings, clients);
    ProducerClient producer = ProducerClient.create(settings, clients);
    Subscription sub = new Subscription(clients, consumer, ConsumerFrame.newBuilder().setInit(SubscribeInit
        .newBuilder().setTopic("orders").setGroup("billing")).build()).awaitSubscribed(WITHIN);
    producer.publish(request(message("orders", "now", 0), message("orders", "later", 3_600_000)))
        .toCompletableFuture().get(30, TimeUnit.SECONDS);
    sub.ack(sub.next(WITHIN).delivery());
    sub.close();
    producer.close();
    consumer.close();
  }

  /** Every PromQL expression of the dashboard: its panels' targets and its variables' queries. */
  static List<String> dashboardQueries() throws IOException {
    JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
    List<String> queries = new ArrayList<>();
    for (JsonNode panel : dashboard.path("panels")) {
      panel.path("targets").forEach(t -> queries.add(t.path("expr").asText()));
    }
    dashboard.path("templating").path("list").forEach(v -> queries.add(v.path("query").path("query").asText()));
    return queries;
  }

  static List<String> alertExpressions() throws IOException {
    JsonNode alerts = new ObjectMapper(new YAMLFactory()).readTree(ALERTS.toFile());
    List<String> exprs = new ArrayList<>();
    alerts.path("groups").forEach(g -> g.path("rules").forEach(r -> exprs.add(r.path("expr").asText())));
    return exprs;
  }

  static Set<String> metricsIn(List<String> expressions) {
    Set<String> names = new TreeSet<>();
    for (String expr : expressions) {
      Matcher m = METRIC.matcher(expr);
      while (m.find()) {
        names.add(m.group(1));
      }
    }
    return names;
  }
}
