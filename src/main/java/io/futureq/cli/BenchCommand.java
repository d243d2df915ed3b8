package io.futureq.cli;

import io.futureq.api.grpc.AckLevel;
import io.futureq.client.FutureQClient;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.HdrHistogram.ConcurrentHistogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code futureq bench}: publishes, consumes and acks, then reports throughput and lateness. */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = "Publish N delayed messages, consume and ack them all, report throughput and delivery lateness.")
final class BenchCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--server", required = true, paramLabel = "HOST:PORT", description = "Broker address.")
  String server;

  @Option(names = "--messages", defaultValue = "200000",
      description = "Messages to publish (default ${DEFAULT-VALUE}).")
  int messages;

  @Option(names = "--payload", defaultValue = "100", description = "Payload bytes (default ${DEFAULT-VALUE}).")
  int payload;

  @Option(names = "--delay-min", defaultValue = "1s", converter = DurationConverter.class,
      description = "Shortest delay (default ${DEFAULT-VALUE}).")
  Duration delayMin;

  @Option(names = "--delay-max", defaultValue = "5s", converter = DurationConverter.class,
      description = "Longest delay (default ${DEFAULT-VALUE}).")
  Duration delayMax;

  @Option(names = "--burst", description = "Make every message due at the same instant (now + --delay-min).")
  boolean burst;

  @Option(names = "--producers", defaultValue = "2", description = "Producer threads (default ${DEFAULT-VALUE}).")
  int producers;

  @Option(names = "--consumers", defaultValue = "2", description = "Consumers in the group (default ${DEFAULT-VALUE}).")
  int consumers;

  @Option(names = "--batch", defaultValue = "100",
      description = "Messages per publish request (default ${DEFAULT-VALUE}).")
  int batch;

  @Option(names = "--max-in-flight", defaultValue = "2000",
      description = "Credit per consumer (default ${DEFAULT-VALUE}).")
  int maxInFlight;

  @Option(names = "--ack-level", defaultValue = "QUORUM",
      description = "NONE, LEADER or QUORUM (default ${DEFAULT-VALUE}).")
  String ackLevel;

  @Option(names = "--topic", description = "Topic to use (default bench-<random>).")
  String topic;

  @Option(names = "--wait", defaultValue = "60s", converter = DurationConverter.class,
      description = "How long past --delay-max to wait for stragglers (default ${DEFAULT-VALUE}).")
  Duration extraWait;

  @Option(names = "--publish-only", description = "Only publish (no consumers): for filling a broker with "
      + "pending messages and measuring the publish rate alone.")
  boolean publishOnly;

  @Option(names = "--json", description = "Print one JSON object.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    if (messages < 1 || payload < 0 || producers < 1 || consumers < 0 || batch < 1 || maxInFlight < 1) {
      throw new CommandLine.ParameterException(spec.commandLine(),
          "--messages, --producers, --consumers, --batch and --max-in-flight must be positive, --payload >= 0");
    }
    if (delayMax.compareTo(delayMin) < 0) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--delay-max must not be below --delay-min");
    }
    AckLevel level;
    try {
      level = AckLevel.valueOf("ACK_LEVEL_" + ackLevel.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--ack-level must be NONE, LEADER or QUORUM");
    }
    String name = topic != null ? topic : "bench-" + UUID.randomUUID().toString().substring(0, 8);
    BenchRun.Plan plan = new BenchRun.Plan(name, "bench", messages, payload, delayMin, delayMax, burst, producers,
        publishOnly ? 0 : consumers, batch, maxInFlight, level, extraWait);
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter progress = System.console() != null && !json ? spec.commandLine().getErr() : null;
    BenchRun.Result result;
    try (FutureQClient client = FutureQClient.builder().target(server).build()) {
      result = new BenchRun(client, plan, progress).run();
    }
    out.println(json ? toJson(result) : toText(result));
    out.flush();
    return (publishOnly || result.missing() == 0) && result.publishErrors() == 0 ? 0 : 1;
  }

  private static double ms(ConcurrentHistogram h, double percentile) {
    return h.getValueAtPercentile(percentile) / 1000.0;
  }

  private static String toText(BenchRun.Result r) {
    ConcurrentHistogram h = r.lateness();
    StringBuilder s = new StringBuilder();
    s.append(String.format(Locale.ROOT, "topic %s: %d messages of %d bytes, %s, ack level %s%n", r.plan().topic(),
        r.plan().messages(), r.plan().payloadBytes(), r.plan().burst() ? "burst" : "delays "
        + r.plan().delayMin().toMillis() + "-" + r.plan().delayMax().toMillis() + "ms", r.plan().ackLevel()));
    s.append(String.format(Locale.ROOT, "publish: %d acked, %d failed, %.0f msg/s%n", r.published(),
        r.publishErrors(), r.publishRate()));
    s.append(String.format(Locale.ROOT, "consume: %d received, %.0f msg/s, %d duplicates, %d missing%n",
        r.received(), r.consumeRate(), r.duplicates(), r.missing()));
    if (r.burstDueMs() > 0) {
      s.append(String.format(Locale.ROOT, "burst: last delivery %d ms after the due instant%n",
          r.lastDeliveryMs() - r.burstDueMs()));
    }
    s.append(String.format(Locale.ROOT, "lateness ms: p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f",
        ms(h, 50), ms(h, 90), ms(h, 99), ms(h, 99.9), h.getMaxValue() / 1000.0));
    return s.toString();
  }

  private static String toJson(BenchRun.Result r) {
    ConcurrentHistogram h = r.lateness();
    return String.format(Locale.ROOT, "{\"topic\":\"%s\",\"messages\":%d,\"payload_bytes\":%d,\"burst\":%b,"
        + "\"ack_level\":\"%s\",\"published\":%d,\"publish_errors\":%d,\"publish_msgs_per_s\":%.1f,"
        + "\"received\":%d,\"consume_msgs_per_s\":%.1f,\"duplicates\":%d,\"missing\":%d,"
        + "\"burst_last_delivery_after_due_ms\":%d,\"lateness_ms\":{\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,"
        + "\"p99_9\":%.3f,\"max\":%.3f}}", r.plan().topic(), r.plan().messages(), r.plan().payloadBytes(),
        r.plan().burst(), r.plan().ackLevel().name().replace("ACK_LEVEL_", ""), r.published(), r.publishErrors(),
        r.publishRate(), r.received(), r.consumeRate(), r.duplicates(), r.missing(),
        r.burstDueMs() > 0 ? r.lastDeliveryMs() - r.burstDueMs() : 0, ms(h, 50), ms(h, 90), ms(h, 99),
        ms(h, 99.9), h.getMaxValue() / 1000.0);
  }
}
