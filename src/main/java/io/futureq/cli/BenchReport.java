package io.futureq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.futureq.api.grpc.Lateness;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.HdrHistogram.ConcurrentHistogram;

/**
 * What {@code futureq bench} prints, as text or as one JSON object with the same figures. CPU figures cover the
 * measured run only (publish, deliveries and acks, not the warm-up); per message means per message received, or
 * per message published when nothing was consumed (with several groups, a message counts once per group that
 * received it). {@code brokerPid}, {@code brokerCpuNanos} and {@code brokerJitCpuNanos} are null without
 * {@code --broker-pid}. {@code brokerJitCpuNanos} is the part of the broker's CPU its JIT compiler threads took: a
 * broker that started minutes ago spends much of its CPU compiling its hot paths, one in service does not.
 * {@code publish_latency_ms} runs from each send call to its acknowledgement, as the producer sees it (its batching,
 * and a send held back by its window, included). {@code brokerLateness} is the broker's own measure of the group's
 * first deliveries (send time minus due time), null when it could not be read. {@code broker_drain_cpu_*} (burst
 * mode with {@code --broker-pid}) is the broker's CPU from the due instant to the last delivery, per delivery: what a
 * delivery costs with its ack and delete, without the publish.
 */
record BenchReport(BenchRun.Result run, int warmupMessages, long clientCpuNanos, Long brokerPid,
    Long brokerCpuNanos, Long brokerJitCpuNanos, Lateness brokerLateness) {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  /** The warning for a burst whose publishing ran past its due instant, or null when there is none. */
  String burstWarning() {
    OptionalLong margin = run.burstMarginMs();
    if (!run.plan().burst() || run.storedBeforeDue()) {
      return null;
    }
    return margin.isPresent()
        ? String.format(Locale.ROOT, "burst invalid: publishing ended %d ms after the due instant; raise --delay-min",
            -margin.getAsLong())
        : "burst invalid: no publish was acknowledged";
  }

  String text() {
    BenchRun.Plan p = run.plan();
    ConcurrentHistogram h = run.lateness();
    StringBuilder s = new StringBuilder();
    s.append(String.format(Locale.ROOT, "topic %s: %d messages of %d bytes, %s, ack level %s%s%n", p.topic(),
        p.messages(), p.payloadBytes(), p.burst() ? "burst due " + p.delayMin().toMillis()
        + " ms after publishing starts" : "delays " + p.delayMin().toMillis() + "-" + p.delayMax().toMillis() + "ms",
        p.ackLevel(), p.groups() > 1 ? ", " + p.groups() + " groups (each receives every message)" : ""));
    if (warmupMessages > 0) {
      s.append(String.format(Locale.ROOT, "warm-up: %d messages on topic %s first, figures discarded%n",
          warmupMessages, p.warmup(warmupMessages).topic()));
    }
    ConcurrentHistogram pl = run.publishLatency();
    s.append(String.format(Locale.ROOT, "publish: %d acked, %d failed, %.0f msg/s; send to ack ms: p50 %.1f  p99 %.1f"
        + "  max %.1f%n", run.published(), run.publishErrors(), run.publishRate(), ms(pl, 50), ms(pl, 99),
        pl.getMaxValue() / 1000.0));
    s.append(String.format(Locale.ROOT, "consume: %d received, %.0f msg/s, %d duplicates, %d missing%n",
        run.received(), run.consumeRate(), run.duplicates(), run.missing()));
    if (burstWarning() != null) {
      s.append(burstWarning()).append(System.lineSeparator());
    } else if (p.burst()) {
      s.append(String.format(Locale.ROOT, "burst: every publish acked %d ms before the due instant%n",
          run.burstMarginMs().getAsLong()));
    }
    run.burstDrainMs().ifPresent(drain -> s.append(String.format(Locale.ROOT,
        "burst: last delivery %d ms after the due instant%n", drain)));
    if (run.drainBrokerCpuNanos() != null) {
      s.append(String.format(Locale.ROOT, "burst: broker cpu from the due instant to the last delivery %.2f s (%s)%n",
          run.drainBrokerCpuNanos() / 1e9, perMessageText(run.drainBrokerCpuNanos())));
    }
    s.append(String.format(Locale.ROOT, "lateness ms: p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f%n",
        ms(h, 50), ms(h, 90), ms(h, 99), ms(h, 99.9), h.getMaxValue() / 1000.0));
    if (brokerLateness != null) {
      s.append(String.format(Locale.ROOT, "broker lateness ms: p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f%n",
          brokerLateness.getP50Us() / 1000.0, brokerLateness.getP90Us() / 1000.0, brokerLateness.getP99Us() / 1000.0,
          brokerLateness.getP999Us() / 1000.0, brokerLateness.getMaxUs() / 1000.0));
    }
    s.append(String.format(Locale.ROOT, "cpu: client %.2f s (%s)", clientCpuNanos / 1e9,
        perMessageText(clientCpuNanos)));
    if (brokerCpuNanos != null) {
      s.append(String.format(Locale.ROOT, ", broker pid %d %.2f s (%s)", brokerPid, brokerCpuNanos / 1e9,
          perMessageText(brokerCpuNanos)));
      if (brokerJitCpuNanos != null) {
        s.append(String.format(Locale.ROOT, " of which JIT compiling %.2f s (%s)", brokerJitCpuNanos / 1e9,
            perMessageText(brokerJitCpuNanos)));
      }
    }
    return s.append(", per message ").append(run.plan().consumers() == 0 ? "published" : "received").toString();
  }

  /**
   * The report as one JSON object. Decimals keep a fixed number of places (rates and per-message CPU 1, seconds
   * and milliseconds 3); {@code burst_last_delivery_after_due_ms} is the older name of {@code burst_drain_ms},
   * 0 where that is null.
   */
  String json() {
    BenchRun.Plan p = run.plan();
    ObjectNode o = JSON.objectNode().put("topic", p.topic()).put("messages", p.messages())
        .put("payload_bytes", p.payloadBytes()).put("burst", p.burst())
        .put("ack_level", p.ackLevel().name().replace("ACK_LEVEL_", "")).put("published", run.published())
        .put("publish_errors", run.publishErrors()).put("publish_msgs_per_s", places(run.publishRate(), 1))
        .put("received", run.received()).put("consume_msgs_per_s", places(run.consumeRate(), 1))
        .put("duplicates", run.duplicates()).put("missing", run.missing())
        .put("burst_last_delivery_after_due_ms", run.burstDrainMs().orElse(0));
    o.set("lateness_ms", percentilesMs(run.lateness()));
    o.put("groups", p.groups()).put("warmup_messages", warmupMessages);
    o.set("burst_lead_ms", p.burst() ? JSON.numberNode(p.delayMin().toMillis()) : JSON.nullNode());
    o.set("stored_before_due", p.burst() ? JSON.booleanNode(run.storedBeforeDue()) : JSON.nullNode());
    o.set("burst_publish_margin_ms", orNull(run.burstMarginMs()));
    o.set("burst_drain_ms", orNull(run.burstDrainMs()));
    o.put("client_cpu_s", seconds(clientCpuNanos)).set("client_cpu_us_per_msg", perMessageJson(clientCpuNanos));
    o.put("broker_pid", brokerPid);
    o.put("broker_cpu_s", brokerCpuNanos == null ? null : seconds(brokerCpuNanos));
    o.set("broker_cpu_us_per_msg", brokerCpuNanos == null ? JSON.nullNode() : perMessageJson(brokerCpuNanos));
    o.put("broker_jit_cpu_s", brokerJitCpuNanos == null ? null : seconds(brokerJitCpuNanos));
    o.set("broker_jit_cpu_us_per_msg",
        brokerJitCpuNanos == null ? JSON.nullNode() : perMessageJson(brokerJitCpuNanos));
    o.set("broker_lateness_ms", brokerLateness == null ? JSON.nullNode() : percentilesMs(
        brokerLateness.getP50Us(), brokerLateness.getP90Us(), brokerLateness.getP99Us(), brokerLateness.getP999Us(),
        brokerLateness.getMaxUs()));
    // The publish shape: requests of batch messages, each producer waiting for answers beyond publish_window
    // messages (awaited: for each request before the next).
    o.put("producers", p.producers()).put("batch", p.batch()).put("publish_window", p.publishWindow())
        .put("awaited", p.publishWindow() == p.batch());
    o.put("rate", p.rate()).put("linger_ms", p.linger() == null ? null : p.linger().toMillis())
        .put("max_in_flight", p.maxInFlight()).put("manual_ack", p.manualAck()).put("ack_each", p.ackEach());
    ConcurrentHistogram publish = run.publishLatency();
    o.set("publish_latency_ms", publish.getTotalCount() == 0 ? JSON.nullNode() : percentilesMs(publish));
    Long drain = run.drainBrokerCpuNanos();
    o.put("broker_drain_cpu_s", drain == null ? null : seconds(drain));
    o.set("broker_drain_cpu_us_per_msg", drain == null ? JSON.nullNode() : perMessageJson(drain));
    return o.toString();
  }

  private static ObjectNode percentilesMs(ConcurrentHistogram h) {
    return percentilesMs(h.getValueAtPercentile(50), h.getValueAtPercentile(90), h.getValueAtPercentile(99),
        h.getValueAtPercentile(99.9), h.getMaxValue());
  }

  /** Microsecond figures as milliseconds, three places. */
  private static ObjectNode percentilesMs(long p50, long p90, long p99, long p999, long max) {
    return JSON.objectNode().put("p50", places(p50 / 1000.0, 3)).put("p90", places(p90 / 1000.0, 3))
        .put("p99", places(p99 / 1000.0, 3)).put("p99_9", places(p999 / 1000.0, 3))
        .put("max", places(max / 1000.0, 3));
  }

  private JsonNode perMessageJson(long cpuNanos) {
    OptionalDouble us = perMessageUs(cpuNanos);
    return us.isPresent() ? JSON.numberNode(places(us.getAsDouble(), 1)) : JSON.nullNode();
  }

  /** CPU microseconds per message, empty when no message was counted. */
  private OptionalDouble perMessageUs(long cpuNanos) {
    long count = run.plan().consumers() == 0 ? run.published() : run.received();
    return count == 0 ? OptionalDouble.empty() : OptionalDouble.of(cpuNanos / 1000.0 / count);
  }

  private String perMessageText(long cpuNanos) {
    OptionalDouble us = perMessageUs(cpuNanos);
    return us.isPresent() ? String.format(Locale.ROOT, "%.1f us/msg", us.getAsDouble()) : "no messages";
  }

  private static BigDecimal seconds(long nanos) {
    return places(nanos / 1e9, 3);
  }

  /** {@code value} rounded half up to {@code places} decimals, written with exactly that many. */
  private static BigDecimal places(double value, int places) {
    return new BigDecimal(value).setScale(places, RoundingMode.HALF_UP);
  }

  private static JsonNode orNull(OptionalLong value) {
    return value.isPresent() ? JSON.numberNode(value.getAsLong()) : JSON.nullNode();
  }

  private static double ms(ConcurrentHistogram h, double percentile) {
    return h.getValueAtPercentile(percentile) / 1000.0;
  }
}
