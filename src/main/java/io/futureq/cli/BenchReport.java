package io.futureq.cli;

import com.fasterxml.jackson.databind.node.TextNode;
import io.futureq.api.grpc.Lateness;
import java.util.Locale;
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
 * first deliveries (send time minus due time), null when it could not be read.
 */
record BenchReport(BenchRun.Result run, int warmupMessages, long clientCpuNanos, Long brokerPid,
    Long brokerCpuNanos, Long brokerJitCpuNanos, Lateness brokerLateness) {

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

  String json() {
    BenchRun.Plan p = run.plan();
    ConcurrentHistogram h = run.lateness();
    String existing = String.format(Locale.ROOT, "{\"topic\":%s,\"messages\":%d,\"payload_bytes\":%d,\"burst\":%b,"
        + "\"ack_level\":\"%s\",\"published\":%d,\"publish_errors\":%d,\"publish_msgs_per_s\":%.1f,"
        + "\"received\":%d,\"consume_msgs_per_s\":%.1f,\"duplicates\":%d,\"missing\":%d,"
        + "\"burst_last_delivery_after_due_ms\":%d,\"lateness_ms\":{\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,"
        + "\"p99_9\":%.3f,\"max\":%.3f}", TextNode.valueOf(p.topic()), p.messages(), p.payloadBytes(), p.burst(),
        p.ackLevel().name().replace("ACK_LEVEL_", ""), run.published(), run.publishErrors(), run.publishRate(),
        run.received(), run.consumeRate(), run.duplicates(), run.missing(), run.burstDrainMs().orElse(0),
        ms(h, 50), ms(h, 90), ms(h, 99), ms(h, 99.9), h.getMaxValue() / 1000.0);
    return existing + String.format(Locale.ROOT, ",\"groups\":%d,\"warmup_messages\":%d,\"burst_lead_ms\":%s,"
        + "\"stored_before_due\":%s,\"burst_publish_margin_ms\":%s,\"burst_drain_ms\":%s,\"client_cpu_s\":%.3f,"
        + "\"client_cpu_us_per_msg\":%s,\"broker_pid\":%s,\"broker_cpu_s\":%s,\"broker_cpu_us_per_msg\":%s,"
        + "\"broker_jit_cpu_s\":%s,\"broker_jit_cpu_us_per_msg\":%s,\"broker_lateness_ms\":%s,"
        + "\"rate\":%d,\"linger_ms\":%s,\"max_in_flight\":%d,\"manual_ack\":%b,\"publish_latency_ms\":%s}",
        p.groups(), warmupMessages, p.burst() ? Long.toString(p.delayMin().toMillis()) : "null",
        p.burst() ? Boolean.toString(run.storedBeforeDue()) : "null", orNull(run.burstMarginMs()),
        orNull(run.burstDrainMs()), clientCpuNanos / 1e9, perMessage(clientCpuNanos),
        brokerPid == null ? "null" : brokerPid.toString(),
        brokerCpuNanos == null ? "null" : String.format(Locale.ROOT, "%.3f", brokerCpuNanos / 1e9),
        brokerCpuNanos == null ? "null" : perMessage(brokerCpuNanos),
        brokerJitCpuNanos == null ? "null" : String.format(Locale.ROOT, "%.3f", brokerJitCpuNanos / 1e9),
        brokerJitCpuNanos == null ? "null" : perMessage(brokerJitCpuNanos), brokerLatenessJson(), p.rate(),
        p.linger() == null ? "null" : Long.toString(p.linger().toMillis()), p.maxInFlight(), p.manualAck(),
        publishLatencyJson());
  }

  private String publishLatencyJson() {
    ConcurrentHistogram h = run.publishLatency();
    if (h.getTotalCount() == 0) {
      return "null";
    }
    return String.format(Locale.ROOT, "{\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"p99_9\":%.3f,\"max\":%.3f}",
        ms(h, 50), ms(h, 90), ms(h, 99), ms(h, 99.9), h.getMaxValue() / 1000.0);
  }

  private String brokerLatenessJson() {
    if (brokerLateness == null) {
      return "null";
    }
    return String.format(Locale.ROOT, "{\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"p99_9\":%.3f,\"max\":%.3f}",
        brokerLateness.getP50Us() / 1000.0, brokerLateness.getP90Us() / 1000.0, brokerLateness.getP99Us() / 1000.0,
        brokerLateness.getP999Us() / 1000.0, brokerLateness.getMaxUs() / 1000.0);
  }

  /** CPU microseconds per message, or "null" when no message was counted. */
  private String perMessage(long cpuNanos) {
    long count = run.plan().consumers() == 0 ? run.published() : run.received();
    return count == 0 ? "null" : String.format(Locale.ROOT, "%.1f", cpuNanos / 1000.0 / count);
  }

  private String perMessageText(long cpuNanos) {
    String us = perMessage(cpuNanos);
    return us.equals("null") ? "no messages" : us + " us/msg";
  }

  private static String orNull(OptionalLong value) {
    return value.isPresent() ? Long.toString(value.getAsLong()) : "null";
  }

  private static double ms(ConcurrentHistogram h, double percentile) {
    return h.getValueAtPercentile(percentile) / 1000.0;
  }
}
