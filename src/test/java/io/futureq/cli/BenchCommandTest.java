package io.futureq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.client.FutureQClient;
import io.futureq.e2e.BrokerExtension;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code futureq bench} end to end: every message published, delivered once, figures reported. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class BenchCommandTest {
  @RegisterExtension
  static final BrokerExtension broker = BrokerExtension.withDefaults();
  static String server;

  @BeforeAll
  static void start() {
    server = broker.server();
  }

  @Test
  void reportsThroughputLatenessNoLossAndClientCpuAsJsonAfterAWarmUp() {
    Cli.Result r = Cli.run("bench", "--server", server, "--messages", "2000", "--delay-min", "100ms",
        "--delay-max", "300ms", "--batch", "50", "--warmup", "1000", "--json");
    assertEquals(0, r.exit(), r.toString());
    String json = r.out().trim();
    // The warm-up's 1000 messages are on their own topic and not counted.
    assertEquals("2000", field(json, "published"), json);
    assertEquals("2000", field(json, "received"), json);
    assertEquals("0", field(json, "missing"), json);
    assertEquals("0", field(json, "duplicates"), json);
    assertTrue(json.contains("\"lateness_ms\":{\"p50\":"), json);
    assertEquals("1000", field(json, "warmup_messages"), json);
    assertTrue(Double.parseDouble(field(json, "client_cpu_s")) > 0, json);
    assertTrue(Double.parseDouble(field(json, "client_cpu_us_per_msg")) > 0, json);
    assertEquals("null", field(json, "broker_pid"), json);
    assertEquals("null", field(json, "broker_cpu_s"), json);
    assertEquals("null", field(json, "broker_cpu_us_per_msg"), json);
    assertEquals("null", field(json, "broker_jit_cpu_s"), json);
    assertEquals("null", field(json, "stored_before_due"), json);
    assertEquals("null", field(json, "burst_drain_ms"), json);
    assertTrue(json.contains("\"publish_latency_ms\":{\"p50\":"), json);
  }

  /** It left its warm-up topic and its own topic behind, two per run. */
  @Test
  void deletesItsTopicsAfterwardsUnlessToldToKeepThem() throws Exception {
    Set<String> before = topics();
    Cli.Result r = Cli.run("bench", "--server", server, "--messages", "500", "--delay-min", "0s", "--delay-max",
        "100ms", "--warmup", "200", "--json");
    assertEquals(0, r.exit(), r.toString());
    assertEquals(before, topics(), "topics left behind by a bench run");

    Cli.Result kept = Cli.run("bench", "--server", server, "--messages", "500", "--delay-min", "0s", "--delay-max",
        "100ms", "--warmup", "200", "--keep-topics", "--json");
    assertEquals(0, kept.exit(), kept.toString());
    Set<String> after = topics();
    after.removeAll(before);
    assertEquals(2, after.size(), "the run's topic and its warm-up topic: " + after);
  }

  private static Set<String> topics() throws Exception {
    try (FutureQClient client = FutureQClient.builder().target(server).build()) {
      Set<String> names = new HashSet<>();
      client.listTopics().get(30, TimeUnit.SECONDS).getTopicsList().forEach(t -> names.add(t.getName()));
      return names;
    }
  }

  @Test
  void withSeveralGroupsEveryGroupReceivesEveryMessage() {
    Cli.Result r = Cli.run("bench", "--server", server, "--messages", "1000", "--delay-min", "0s",
        "--delay-max", "200ms", "--groups", "3", "--consumers", "1", "--warmup", "0", "--json");
    assertEquals(0, r.exit(), r.toString());
    String json = r.out().trim();
    assertEquals("3", field(json, "groups"), json);
    assertEquals("1000", field(json, "published"), json);
    assertEquals("3000", field(json, "received"), json);
    assertEquals("0", field(json, "missing"), json);
    assertEquals("0", field(json, "duplicates"), json);
  }

  @Test
  void burstStoredBeforeItsDueInstantReportsItsDrain() {
    // --delay-max is below the lead: ignored with --burst.
    Cli.Result r = Cli.run("bench", "--server", server, "--messages", "1000", "--burst", "--delay-min", "5s",
        "--delay-max", "1s", "--warmup", "0", "--json");
    assertEquals(0, r.exit(), r.toString());
    String json = r.out().trim();
    assertEquals("1000", field(json, "received"), json);
    assertEquals("true", field(json, "burst"), json);
    assertEquals("5000", field(json, "burst_lead_ms"), json);
    assertEquals("true", field(json, "stored_before_due"), json);
    assertTrue(Long.parseLong(field(json, "burst_publish_margin_ms")) > 0, json);
    long drain = Long.parseLong(field(json, "burst_drain_ms"));
    assertTrue(drain >= 0, json);
    assertEquals(drain, Long.parseLong(field(json, "burst_last_delivery_after_due_ms")), json);
    assertEquals("0", field(json, "warmup_messages"), json);
    assertFalse(r.err().contains("burst invalid"), r.err());
  }

  @Test
  void burstStillPublishingAtItsDueInstantIsReportedInvalid() {
    Cli.Result text = Cli.run("bench", "--server", server, "--messages", "500", "--burst", "--delay-min", "0s",
        "--warmup", "0");
    assertEquals(0, text.exit(), text.toString());
    assertTrue(text.out().contains("burst invalid: publishing ended "), text.out());
    assertTrue(text.out().contains("ms after the due instant; raise --delay-min"), text.out());
    assertTrue(text.out().contains("burst: last delivery"), text.out());
    Cli.Result json = Cli.run("bench", "--server", server, "--messages", "500", "--burst", "--delay-min", "0s",
        "--warmup", "0", "--json");
    assertEquals(0, json.exit(), json.toString());
    assertEquals("false", field(json.out(), "stored_before_due"), json.out());
    assertTrue(json.err().contains("burst invalid: publishing ended "), json.err());
  }

  @Test
  void publishOnlyReportsClientCpuPerPublishedMessage() {
    Cli.Result r = Cli.run("bench", "--server", server, "--messages", "1000", "--publish-only", "--warmup", "200",
        "--json");
    assertEquals(0, r.exit(), r.toString());
    assertEquals("1000", field(r.out(), "published"), r.out());
    assertEquals("0", field(r.out(), "received"), r.out());
    assertTrue(Double.parseDouble(field(r.out(), "client_cpu_us_per_msg")) > 0, r.out());
  }

  @Test
  void awaitedSendsOneRequestAtATimeAndSaysSoInItsReport() {
    Cli.Result r = Cli.run("bench", "--server", server, "--messages", "300", "--publish-only", "--awaited", "--batch",
        "1", "--warmup", "0", "--json");
    assertEquals(0, r.exit(), r.toString());
    assertEquals("300", field(r.out(), "published"), r.out());
    assertEquals("1", field(r.out(), "publish_window"), r.out());
    assertEquals("true", field(r.out(), "awaited"), r.out());
    Cli.Result pipelined = Cli.run("bench", "--server", server, "--messages", "300", "--publish-only", "--warmup", "0",
        "--json");
    assertEquals("false", field(pipelined.out(), "awaited"), pipelined.out());
    Cli.Result both = Cli.run("bench", "--server", server, "--awaited", "--batch", "10", "--publish-window", "100");
    assertEquals(2, both.exit(), both.toString());
    assertTrue(both.err().contains("--awaited"), both.err());
  }

  @Test
  void reportsBrokerCpuOfTheGivenProcess() {
    // The test broker runs in this JVM, so this process is the broker's.
    long pid = ProcessHandle.current().pid();
    Cli.Result r = Cli.run("bench", "--server", server, "--messages", "1000", "--delay-min", "0s",
        "--delay-max", "100ms", "--warmup", "0", "--broker-pid", Long.toString(pid), "--json");
    assertEquals(0, r.exit(), r.toString());
    assertEquals(Long.toString(pid), field(r.out(), "broker_pid"), r.out());
    assertTrue(Double.parseDouble(field(r.out(), "broker_cpu_s")) > 0, r.out());
    assertTrue(Double.parseDouble(field(r.out(), "broker_cpu_us_per_msg")) > 0, r.out());
    double jit = Double.parseDouble(field(r.out(), "broker_jit_cpu_s"));
    assertTrue(jit >= 0 && jit <= Double.parseDouble(field(r.out(), "broker_cpu_s")), r.out());
    Cli.Result text = Cli.run("bench", "--server", server, "--messages", "500", "--delay-min", "0s",
        "--delay-max", "100ms", "--warmup", "0", "--broker-pid", Long.toString(pid));
    assertEquals(0, text.exit(), text.toString());
    assertTrue(text.out().contains("cpu: client "), text.out());
    assertTrue(text.out().contains(", broker pid " + pid + " "), text.out());
  }

  @Test
  void ackEachConsumersOnPlainGrpcReceiveEveryMessageAndABurstReportsTheBrokerCpuOfItsDrain() {
    long pid = ProcessHandle.current().pid();
    Cli.Result r = Cli.run("bench", "--server", server, "--messages", "1000", "--burst", "--delay-min", "3s",
        "--warmup", "0", "--ack-each", "--max-in-flight", "10", "--broker-pid", Long.toString(pid), "--json");
    assertEquals(0, r.exit(), r.toString());
    assertEquals("0", field(r.out(), "missing"), r.out());
    assertEquals("true", field(r.out(), "ack_each"), r.out());
    assertTrue(Double.parseDouble(field(r.out(), "broker_drain_cpu_s")) > 0, r.out());
  }

  @Test
  void pacedWithAChosenLingerPublishesEveryMessageAndSaysHow() {
    Cli.Result r = Cli.run("bench", "--server", server, "--messages", "300", "--publish-only", "--warmup", "0",
        "--rate", "1000", "--linger", "1ms", "--json");
    assertEquals(0, r.exit(), r.toString());
    assertEquals("300", field(r.out(), "published"), r.out());
    assertEquals("1000", field(r.out(), "rate"), r.out());
    assertEquals("1", field(r.out(), "linger_ms"), r.out());
    Cli.Result defaults = Cli.run("bench", "--server", server, "--messages", "100", "--publish-only", "--warmup", "0",
        "--json");
    assertEquals("null", field(defaults.out(), "linger_ms"), defaults.out());
  }

  @Test
  void consumersWithTheClientsDefaultCreditAckingOneByOneReceiveEveryMessageAndSaySo() {
    // Issue 29's "client defaults" shape: credit 100, each message acked from the handler.
    Cli.Result r = Cli.run("bench", "--server", server, "--messages", "2000", "--delay-min", "0s", "--delay-max",
        "200ms", "--warmup", "0", "--max-in-flight", "100", "--manual-ack", "--json");
    assertEquals(0, r.exit(), r.toString());
    assertEquals("2000", field(r.out(), "received"), r.out());
    assertEquals("0", field(r.out(), "missing"), r.out());
    assertEquals("100", field(r.out(), "max_in_flight"), r.out());
    assertEquals("true", field(r.out(), "manual_ack"), r.out());
  }

  @Test
  void rejectsAnUnknownBrokerPidBeforeRunning() {
    Cli.Result r = Cli.run("bench", "--server", server, "--broker-pid", "2147483647");
    assertEquals(2, r.exit(), r.toString());
    assertTrue(r.err().contains("--broker-pid 2147483647: no such process"), r.err());
    assertEquals("", r.out());
  }

  @Test
  void rejectsInconsistentDelaysAndANegativeWarmUp() {
    Cli.Result r = Cli.run("bench", "--server", server, "--delay-min", "5s", "--delay-max", "1s");
    assertEquals(2, r.exit(), r.toString());
    assertTrue(r.err().contains("--delay-max"), r.err());
    Cli.Result warmup = Cli.run("bench", "--server", server, "--warmup", "-1");
    assertEquals(2, warmup.exit(), warmup.toString());
    assertTrue(warmup.err().contains("--warmup"), warmup.err());
  }

  /** The raw value of a top-level field of a flat JSON object: a number, true, false, null or a quoted string. */
  private static String field(String json, String name) {
    Matcher m = Pattern.compile("\"" + Pattern.quote(name) + "\":([^,}]*)").matcher(json);
    assertTrue(m.find(), name + " missing in " + json);
    return m.group(1);
  }
}
