package io.futureq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.futureq.api.grpc.AckLevel;
import io.futureq.api.grpc.Lateness;
import java.time.Duration;
import org.HdrHistogram.ConcurrentHistogram;
import org.junit.jupiter.api.Test;

/**
 * {@code futureq bench --json}: one object, field for field, in order and with the decimals scripts and
 * docs/benchmarks.md read, absent figures as null, a topic name escaped. Written against the format-string
 * version of BenchReport.json(), so the Jackson one keeps its output.
 */
class BenchReportTest {
  /** Reads decimals as written, so 0.000 stays 0.000. */
  private static final ObjectMapper MAPPER = new ObjectMapper()
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .setNodeFactory(JsonNodeFactory.withExactBigDecimals(true));

  @Test
  void aDelayedRunWithoutABrokerPidWritesEveryFieldInOrderAndNoneAsNull() {
    BenchRun.Plan plan = plan("bench-\"q\"\\1", false, 1, 2, 0, null);
    BenchRun.Result run = new BenchRun.Result(plan, 2_000_000_000L, 3000, 1, 2999, 0, 1, 1_000, 3_000, 0, 2_500,
        histogram(1_500, 2_500, 40_250), histogram(800, 1_200, 9_999), null);

    String json = new BenchReport(run, 1000, 1_234_567_890L, null, null, null, null).json();

    assertEquals("{\"topic\":\"bench-\\\"q\\\"\\\\1\",\"messages\":3000,\"payload_bytes\":100,\"burst\":false,"
        + "\"ack_level\":\"QUORUM\",\"published\":3000,\"publish_errors\":1,\"publish_msgs_per_s\":1500.0,"
        + "\"received\":2999,\"consume_msgs_per_s\":1499.5,\"duplicates\":0,\"missing\":1,"
        + "\"burst_last_delivery_after_due_ms\":0,\"lateness_ms\":{\"p50\":2.501,\"p90\":40.255,\"p99\":40.255,"
        + "\"p99_9\":40.255,\"max\":40.255},\"groups\":1,\"warmup_messages\":1000,\"burst_lead_ms\":null,"
        + "\"stored_before_due\":null,\"burst_publish_margin_ms\":null,\"burst_drain_ms\":null,"
        + "\"client_cpu_s\":1.235,\"client_cpu_us_per_msg\":411.7,\"broker_pid\":null,\"broker_cpu_s\":null,"
        + "\"broker_cpu_us_per_msg\":null,\"broker_jit_cpu_s\":null,\"broker_jit_cpu_us_per_msg\":null,"
        + "\"broker_lateness_ms\":null,\"producers\":2,\"batch\":100,\"publish_window\":0,\"awaited\":false,"
        + "\"rate\":0,\"linger_ms\":null,\"max_in_flight\":1000,\"manual_ack\":false,"
        + "\"ack_each\":false,\"publish_latency_ms\":{\"p50\":1.200,\"p90\":9.999,\"p99\":9.999,\"p99_9\":9.999,"
        + "\"max\":9.999},\"broker_drain_cpu_s\":null,\"broker_drain_cpu_us_per_msg\":null}",
        json);
  }

  @Test
  void aBurstWithBrokerFiguresWritesThemAndItsMargins() throws Exception {
    BenchRun.Plan plan = plan("burst", true, 3, 1, 2_000, Duration.ofMillis(5));
    // Due at 10,000; the last publish acked at 7,000; the last delivery at 10,450.
    BenchRun.Result run = new BenchRun.Result(plan, 1_000_000_000L, 100, 0, 300, 2, 0, 10_000, 10_450, 10_000,
        7_000, histogram(100, 200, 450_000), histogram(1_000), 90_000_000L);
    Lateness broker = Lateness.newBuilder().setDeliveries(300).setP50Us(1_500).setP90Us(2_000).setP99Us(3_000)
        .setP999Us(4_000).setMaxUs(5_001).build();

    JsonNode json = MAPPER.readTree(new BenchReport(run, 0, 3_000_000L, 42L, 600_000_000L, 150_000_000L, broker)
        .json());

    assertEquals("true", json.get("burst").toString());
    assertEquals("450", json.get("burst_last_delivery_after_due_ms").toString());
    assertEquals("2000", json.get("burst_lead_ms").toString());
    assertEquals("true", json.get("stored_before_due").toString());
    assertEquals("3000", json.get("burst_publish_margin_ms").toString());
    assertEquals("450", json.get("burst_drain_ms").toString());
    assertEquals("3", json.get("groups").toString());
    assertEquals("0.003", json.get("client_cpu_s").toString());
    assertEquals("10.0", json.get("client_cpu_us_per_msg").toString());
    assertEquals("42", json.get("broker_pid").toString());
    assertEquals("0.600", json.get("broker_cpu_s").toString());
    assertEquals("2000.0", json.get("broker_cpu_us_per_msg").toString());
    assertEquals("0.150", json.get("broker_jit_cpu_s").toString());
    assertEquals("500.0", json.get("broker_jit_cpu_us_per_msg").toString());
    assertEquals("{\"p50\":1.500,\"p90\":2.000,\"p99\":3.000,\"p99_9\":4.000,\"max\":5.001}",
        json.get("broker_lateness_ms").toString());
    assertEquals("2000", json.get("rate").toString());
    assertEquals("5", json.get("linger_ms").toString());
    assertEquals("true", json.get("manual_ack").toString());
    assertEquals("\"LEADER\"", json.get("ack_level").toString());
    assertEquals("0.090", json.get("broker_drain_cpu_s").toString());
    assertEquals("300.0", json.get("broker_drain_cpu_us_per_msg").toString());
  }

  @Test
  void aPublishOnlyRunThatPublishedNothingHasNoPerMessageFiguresAndNoPublishLatency() throws Exception {
    BenchRun.Plan plan = plan("empty", false, 1, 0, 0, null);
    BenchRun.Result run = new BenchRun.Result(plan, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, histogram(), histogram(), null);

    JsonNode json = MAPPER.readTree(new BenchReport(run, 0, 5_000_000L, 7L, 1_000_000L, null, null).json());

    assertEquals("0.0", json.get("publish_msgs_per_s").toString());
    assertEquals("0.005", json.get("client_cpu_s").toString());
    assertEquals("null", json.get("client_cpu_us_per_msg").toString());
    assertEquals("0.001", json.get("broker_cpu_s").toString());
    assertEquals("null", json.get("broker_cpu_us_per_msg").toString());
    assertEquals("null", json.get("broker_jit_cpu_s").toString());
    assertEquals("null", json.get("publish_latency_ms").toString());
    assertEquals("{\"p50\":0.000,\"p90\":0.000,\"p99\":0.000,\"p99_9\":0.000,\"max\":0.000}",
        json.get("lateness_ms").toString());
  }

  private static BenchRun.Plan plan(String topic, boolean burst, int groups, int consumers, long rate,
      Duration linger) {
    return new BenchRun.Plan(topic, "g", groups, burst ? 100 : 3000, 100, burst ? Duration.ofSeconds(2)
        : Duration.ofSeconds(1), Duration.ofSeconds(5), burst, 2, consumers, 100, 1000,
        burst ? AckLevel.ACK_LEVEL_LEADER : AckLevel.ACK_LEVEL_QUORUM, Duration.ZERO, 0, rate, linger, burst, false);
  }

  /** Values in microseconds. */
  private static ConcurrentHistogram histogram(long... valuesUs) {
    ConcurrentHistogram h = new ConcurrentHistogram(3_600_000_000L, 3);
    for (long v : valuesUs) {
      h.recordValue(v);
    }
    return h;
  }
}
