package io.futureq.cli;

import io.futureq.api.grpc.AckLevel;
import io.futureq.api.grpc.GroupStats;
import io.futureq.api.grpc.Lateness;
import io.futureq.client.FutureQClient;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code futureq bench}: warms up, then publishes, consumes and acks, and reports throughput, lateness and CPU time
 * per message. Exits 0 when nothing is missing and no publish failed, 1 otherwise (or when the broker process
 * of {@code --broker-pid} goes away), 2 for bad flags.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = "Publish N delayed messages, consume and ack them all, report throughput, delivery lateness and "
        + "CPU time per message.")
final class BenchCommand implements Callable<Integer> {
  static final Duration DEFAULT_DELAY_MIN = Duration.ofSeconds(1);
  /** Long enough for a default burst of 200,000 messages to be stored before its due instant on a slow box. */
  static final Duration DEFAULT_BURST_LEAD = Duration.ofSeconds(20);

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--server", paramLabel = "HOST:PORT", converter = ServerOptions.Address.class,
      defaultValue = "${env:" + ServerOptions.SERVER_VARIABLE + ":-" + ServerOptions.DEFAULT_SERVER + "}",
      description = "The broker's gRPC address (default: $" + ServerOptions.SERVER_VARIABLE + ", else "
          + ServerOptions.DEFAULT_SERVER + ").")
  String server;

  @CommandLine.Mixin
  TokenOption token;
  @Mixin
  TlsOptions tls;

  @Option(names = "--messages", defaultValue = "200000",
      description = "Messages to publish (default ${DEFAULT-VALUE}).")
  int messages;

  @Option(names = "--payload", defaultValue = "100", description = "Payload bytes (default ${DEFAULT-VALUE}).")
  int payload;

  @Option(names = "--delay-min", converter = DurationConverter.class, paramLabel = "DURATION",
      description = "Shortest delay (default 1s). With --burst: the lead from the start of publishing to the due "
          + "instant (default 20s).")
  Duration delayMin;

  @Option(names = "--delay-max", defaultValue = "5s", converter = DurationConverter.class, paramLabel = "DURATION",
      description = "Longest delay (default ${DEFAULT-VALUE}); ignored with --burst.")
  Duration delayMax;

  @Option(names = "--burst", description = "Make every message due at one instant, the start of publishing plus "
      + "--delay-min (default 20s), so the whole burst is stored before it is due. Reports burst_drain_ms (due "
      + "instant to last delivery) and stored_before_due, false when publishing ran past the instant.")
  boolean burst;

  @Option(names = "--warmup", defaultValue = "20000", paramLabel = "N",
      description = "Messages for a warm-up before the measured run, 0 for none (default ${DEFAULT-VALUE}): same "
          + "producers, consumers, batch and credit, on topic <topic>-warmup, due 0-1s after publishing, all "
          + "consumed; its figures are discarded. Keeps the JIT of a cold client JVM out of the figures.")
  int warmup;

  @Option(names = "--broker-pid", paramLabel = "PID", description = "Process id of the broker, on this host: "
      + "reports its CPU time per message over the measured run, from /proc/PID/stat, and the part of it its JIT "
      + "compiler threads took (high on a broker that started recently).")
  Long brokerPid;

  @Option(names = "--producers", defaultValue = "2", description = "Producer threads (default ${DEFAULT-VALUE}).")
  int producers;

  @Option(names = "--consumers", defaultValue = "2",
      description = "Consumers in each group (default ${DEFAULT-VALUE}).")
  int consumers;

  @Option(names = "--groups", defaultValue = "1", description = "Consumer groups on the topic, each receiving every "
      + "message (default ${DEFAULT-VALUE}).")
  int groups;

  @Option(names = "--batch", defaultValue = "100",
      description = "Messages per publish request (default ${DEFAULT-VALUE}).")
  int batch;

  @Option(names = "--max-in-flight", defaultValue = "2000", description = "Credit per consumer (default "
      + "${DEFAULT-VALUE}); 0 for the client's defaults (ConsumerOptions.defaults(): the broker's default credit, "
      + "1000 deliveries and 16 MiB).")
  int maxInFlight;

  @Option(names = "--manual-ack", description = "Consumers ack each message from their handler, as an application "
      + "that acks once it has handled a message (the client's manual acks); default: the client acks after the "
      + "handler returns.")
  boolean manualAck;

  @Option(names = "--ack-each", description = "Consumers on plain grpc-java, not the Java client, that ack each "
      + "delivery in a frame of its own as they handle it (any gRPC client may): the shape that costs the broker "
      + "most per delivery. Plaintext, no token. With --max-in-flight 0, the broker's default credit.")
  boolean ackEach;

  @Option(names = "--publish-window", description = "Messages each producer may have unanswered; it waits for "
      + "answers beyond (default: 64 batches, at least 10000). Set it to --batch for one request at a time, where "
      + "publish_latency_ms is the round trip rather than the wait in the queue.")
  Integer publishWindow;

  @Option(names = "--awaited", description = "The application shape: each producer sends one request of --batch "
      + "messages and waits for its answer before the next, as a request handler or a job does (--publish-window equal "
      + "to --batch). With --batch 1, one message per awaited request. publish_latency_ms is then the round trip.")
  boolean awaited;

  @Option(names = "--rate", defaultValue = "0", paramLabel = "MSGS_PER_S", description = "Messages per second the "
      + "producers publish together, each send at its own instant; publish_latency_ms is then the latency at that "
      + "load (default: as fast as they can).")
  long rate;

  @Option(names = "--linger", converter = DurationConverter.class, paramLabel = "DURATION", description = "How long "
      + "a producer's batch waits for more messages before it is sent (default: the client's, 5ms). At a paced "
      + "--rate the batches fill by time, not by count, so publish_latency_ms includes up to this wait.")
  Duration linger;

  @Option(names = "--ack-level", defaultValue = "QUORUM",
      description = "NONE, LEADER or QUORUM (default ${DEFAULT-VALUE}).")
  String ackLevel;

  @Option(names = "--topic", description = "Topic to use (default bench-<random>).")
  String topic;

  @Option(names = "--keep-topics", description = "Keep the bench's topics afterwards. By default the warm-up topic "
      + "is deleted once the run is measured, and so is a bench-<random> topic whose messages were all consumed; a "
      + "--topic you named and a --publish-only run's topic are kept.")
  boolean keepTopics;

  @Option(names = "--wait", defaultValue = "60s", converter = DurationConverter.class,
      description = "How long past the last due time to wait for stragglers (default ${DEFAULT-VALUE}).")
  Duration extraWait;

  @Option(names = "--publish-only", description = "Only publish (no consumers): for filling a broker with "
      + "pending messages and measuring the publish rate alone.")
  boolean publishOnly;

  @Option(names = "--json", description = "Print one JSON object.")
  boolean json;

  /** The broker's own lateness of the group's first deliveries, or null (publish-only, or stats failed). */
  private static Lateness brokerLateness(FutureQClient client, BenchRun.Plan plan) {
    if (plan.consumers() == 0) {
      return null;
    }
    try {
      return client.topicStats(plan.topic()).get(10, TimeUnit.SECONDS).getGroupsList().stream()
          .filter(g -> g.getName().equals(plan.group())).map(GroupStats::getLateness).findFirst().orElse(null);
    } catch (Exception e) {
      return null;
    }
  }

  @Override
  public Integer call() throws Exception {
    BenchRun.Plan plan = plan();
    ProcessCpu broker = brokerCpu();
    ProcessCpu brokerJit = broker == null ? null : ProcessCpu.compilerThreadsOf(brokerPid);
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    PrintWriter progress = System.console() != null && !json ? err : null;
    BenchReport report;
    ManagedChannel channel = ackEach
        ? Grpc.newChannelBuilder(server, InsecureChannelCredentials.create()).build() : null;
    LongSupplier brokerNanos = broker == null ? null : () -> nanos(broker).orElse(0);
    try (FutureQClient client = tls.build(token.apply(FutureQClient.builder().target(server)))) {
      if (warmup > 0) {
        warmUp(new BenchRun(client, channel, null, plan.warmup(warmup), progress, "warm-up "), err);
      }
      ProcessCpu self = ProcessCpu.self();
      long clientStart = self.nanos();
      OptionalLong brokerStart = nanos(broker);
      OptionalLong jitStart = nanos(brokerJit);
      BenchRun.Result result = new BenchRun(client, channel, brokerNanos, plan, progress, "").run();
      long clientCpu = self.nanos() - clientStart;
      OptionalLong brokerEnd = nanos(broker);
      OptionalLong jitEnd = nanos(brokerJit);
      report = new BenchReport(result, warmup, clientCpu, brokerPid, difference(brokerStart, brokerEnd),
          difference(jitStart, jitEnd), brokerLateness(client, plan));
      if (!keepTopics && warmup > 0) {
        deleteTopic(client, plan.warmup(warmup).topic(), err);
      }
      if (!keepTopics && topic == null && !publishOnly && result.missing() == 0) {
        deleteTopic(client, plan.topic(), err);
      }
    } finally {
      if (channel != null) {
        channel.shutdownNow();
      }
    }
    out.println(json ? report.json() : report.text());
    out.flush();
    if (json && report.burstWarning() != null) {
      err.println("futureq: " + report.burstWarning());
    }
    boolean brokerGone = broker != null && report.brokerCpuNanos() == null;
    if (brokerGone) {
      err.println("futureq: --broker-pid " + brokerPid + ": /proc/" + brokerPid + "/stat became unreadable "
          + "during the run; did the broker exit?");
    }
    err.flush();
    BenchRun.Result r = report.run();
    return (publishOnly || r.missing() == 0) && r.publishErrors() == 0 && !brokerGone ? 0 : 1;
  }

  private BenchRun.Plan plan() {
    if (messages < 1 || payload < 0 || producers < 1 || consumers < 0 || groups < 1 || batch < 1 || maxInFlight < 0
        || warmup < 0 || (publishWindow != null && publishWindow < batch)) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--messages, --producers, --consumers, --groups "
          + "and --batch must be positive, --payload, --warmup and --max-in-flight >= 0, --publish-window >= --batch");
    }
    Duration min = delayMin != null ? delayMin : burst ? DEFAULT_BURST_LEAD : DEFAULT_DELAY_MIN;
    if (!burst && delayMax.compareTo(min) < 0) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--delay-max must not be below --delay-min");
    }
    if (linger != null && linger.isNegative()) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--linger must not be negative");
    }
    if (ackEach && (tls.tls || (token.token != null && !token.token.isBlank()))) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--ack-each runs plaintext consumers without a "
          + "token: not with --tls or --token");
    }
    if (rate < 0) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--rate must not be negative");
    }
    if (awaited && publishWindow != null && publishWindow != batch) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--awaited waits for each request: its window is "
          + "--batch (" + batch + "), not --publish-window " + publishWindow);
    }
    AckLevel level;
    try {
      level = AckLevel.valueOf("ACK_LEVEL_" + ackLevel.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--ack-level must be NONE, LEADER or QUORUM");
    }
    String name = topic != null ? topic : "bench-" + UUID.randomUUID().toString().substring(0, 8);
    return new BenchRun.Plan(name, "bench", groups, messages, payload, min, burst ? min : delayMax, burst, producers,
        publishOnly ? 0 : consumers, batch, maxInFlight, level, extraWait,
        awaited ? batch : publishWindow != null ? publishWindow : Math.max(batch * 64, 10_000), rate, linger, manualAck,
        ackEach);
  }

  private ProcessCpu brokerCpu() {
    if (brokerPid == null) {
      return null;
    }
    if (brokerPid < 1) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--broker-pid must be a process id, got "
          + brokerPid);
    }
    try {
      return ProcessCpu.of(brokerPid);
    } catch (UncheckedIOException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--broker-pid " + brokerPid
          + ": no such process on this host (" + e.getMessage() + ")");
    }
  }

  /** The process's CPU time so far; empty without a process or once it is gone. */
  private static OptionalLong nanos(ProcessCpu process) {
    if (process == null) {
      return OptionalLong.empty();
    }
    try {
      return OptionalLong.of(process.nanos());
    } catch (UncheckedIOException e) {
      return OptionalLong.empty();
    }
  }

  private static Long difference(OptionalLong start, OptionalLong end) {
    return start.isPresent() && end.isPresent() ? end.getAsLong() - start.getAsLong() : null;
  }

  /** Best effort: a broker that refuses (no admin permission) keeps the topic, and the bench says so. */
  private static void deleteTopic(FutureQClient client, String name, PrintWriter err) {
    try {
      client.deleteTopic(name).get(30, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      err.println("futureq: topic " + name + " was kept: deleting it failed (" + e.getMessage() + ")");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void warmUp(BenchRun warmup, PrintWriter err) throws Exception {
    BenchRun.Result w = warmup.run();
    if (w.missing() > 0 || w.publishErrors() > 0) {
      err.printf(Locale.ROOT, "futureq: warm-up on topic %s: %d publishes failed, %d messages missing; "
          + "measuring anyway%n", w.plan().topic(), w.publishErrors(), w.missing());
      err.flush();
    }
  }
}
