package io.futureq.reliability;

import io.futureq.client.FutureQClient;
import io.futureq.testing.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * The standalone crash loop: a broker process is SIGKILLed at a random moment of every round and
 * started again on the same data directory and ports, under the {@link Workload} (two groups, a
 * universal subscriber, nacks, TTLs, cancels, key reuse; ack level QUORUM). Between the kill and the
 * restart, {@link StorageProbe} reads the dead broker's RocksDB (read-only, as the restart will
 * recover it) and notes which delivered messages each group's acks had made durable: a later
 * delivery of one of those to that group is a resurrection, exactly. At the end the workload drains
 * and checks every guarantee ({@link Workload.Report#violations()}).
 *
 * <p>Used by {@code CrashLoopTest} (5 rounds) and by {@code scripts/crash-loop.sh ROUNDS DIR}.
 */
public final class CrashLoop {
  private static final Duration START = Duration.ofSeconds(90);

  /**
   * @param rounds kill-and-restart rounds
   * @param workDir config, data directory and one log per broker incarnation go here
   * @param ratePerSecond messages published per second
   * @param maxDelayMs delays are uniform in [0, maxDelayMs]
   * @param inFlightTimeoutMs the broker's {@code futureq.group.in-flight-timeout}
   * @param deleteBatchIntervalMs the broker's {@code futureq.topic.delete-batch-interval}
   * @param minKillMs earliest kill, after the round started (broker ready, first publish answered)
   * @param maxKillMs latest kill
   * @param launcher the CLI command ({@code bin/futureq}), or empty for {@code java -cp ...}
   * @param seed for the workload and the kill moments
   */
  public record Options(int rounds, Path workDir, int ratePerSecond, long maxDelayMs, long inFlightTimeoutMs,
      long deleteBatchIntervalMs, long minKillMs, long maxKillMs, List<String> launcher, long seed) {

    public static Options of(int rounds, Path workDir) {
      return new Options(rounds, workDir, 100, 3000, 2000, 50, 1000, 3000, List.of(), System.nanoTime());
    }

    public Options withLauncher(List<String> command) {
      return new Options(rounds, workDir, ratePerSecond, maxDelayMs, inFlightTimeoutMs, deleteBatchIntervalMs,
          minKillMs, maxKillMs, command, seed);
    }

    public Options withRate(int perSecond) {
      return new Options(rounds, workDir, perSecond, maxDelayMs, inFlightTimeoutMs, deleteBatchIntervalMs,
          minKillMs, maxKillMs, launcher, seed);
    }

    public Options withSeed(long s) {
      return new Options(rounds, workDir, ratePerSecond, maxDelayMs, inFlightTimeoutMs, deleteBatchIntervalMs,
          minKillMs, maxKillMs, launcher, s);
    }
  }

  private final Options options;
  private final Random killMoments;
  private final StringBuilder journal = new StringBuilder();

  private CrashLoop(Options options) {
    this.options = options;
    this.killMoments = new Random(options.seed() + 7);
  }

  static Workload.Report run(Options options) throws Exception {
    return new CrashLoop(options).run();
  }

  private Workload.Report run() throws Exception {
    long begin = System.currentTimeMillis();
    String extra = String.join("\n",
        "futureq.group.in-flight-timeout = " + options.inFlightTimeoutMs() + "ms",
        "futureq.topic.delete-batch-interval = " + options.deleteBatchIntervalMs() + "ms");
    BrokerNode broker = BrokerNode.create(options.workDir(), extra, options.launcher());
    String target = "127.0.0.1:" + broker.grpcPort;
    say("work dir " + options.workDir() + ", gRPC " + target + ", management :" + broker.managementPort + ", seed "
        + options.seed());
    Workload workload = new Workload(new Workload.Options(options.seed(), options.ratePerSecond(),
        options.maxDelayMs(), options.inFlightTimeoutMs()), this::say);
    int survived = 0;
    List<String> notes = new ArrayList<>();
    try {
      broker.start(START);
      long readyAt = System.currentTimeMillis();
      try (FutureQClient client = FutureQClient.builder().target(target).requestTimeout(Duration.ofSeconds(10))
          .build();
          FutureQClient admin = FutureQClient.builder().target(target).build()) {
        workload.start(client, admin);
        for (int round = 1; round <= options.rounds(); round++) {
          long roundStart = awaitFirstAnswer(workload, readyAt);
          long killAfter = options.minKillMs() + (long) (killMoments.nextDouble()
              * (options.maxKillMs() - options.minKillMs()));
          // a sleep: the kill strikes at a random moment of the load
          Thread.sleep(Math.max(0, roundStart + killAfter - System.currentTimeMillis()));
          long killedAt = System.currentTimeMillis();
          long pid = broker.pid();
          broker.kill();
          int index = workload.disruptionCount();
          for (String group : Workload.GROUPS) {
            Set<String> candidates = workload.probeCandidates(Workload.TOPIC, group, killedAt);
            workload.durablyAcked(Workload.TOPIC, group, StorageProbe.durablyAcked(broker.data, Workload.TOPIC, group,
                candidates), index);
          }
          long resumedAt = System.currentTimeMillis();
          broker.start(START);
          readyAt = System.currentTimeMillis();
          workload.disrupted(new Workload.Disruption("SIGKILL pid " + pid, killedAt, resumedAt, readyAt, Set.of()));
          survived = round;
          say(String.format("round %d/%d: SIGKILL pid %d %d ms into the round (exit 137); answered %d, delivered %d;"
              + " ready again after %.1f s", round, options.rounds(), pid, killedAt - roundStart, workload.answered(),
              workload.deliveries(), (readyAt - killedAt) / 1000.0));
        }
        awaitFirstAnswer(workload, readyAt);
        Thread.sleep(1000); // a sleep: a last second of load through the last incarnation
        workload.finish(admin);
      }
    } catch (Throwable t) {
      say("FAILED: " + t + "\nbroker output tail:\n" + broker.tail(60));
      throw t;
    } finally {
      workload.stop();
      broker.close();
      Files.writeString(options.workDir().resolve("crash-loop.journal"), journal.toString());
      workload.dump(options.workDir());
    }
    notes.add("every round: SIGKILL of the broker (exit 137 checked), restart on the same data directory");
    return workload.analyze("crash loop", survived, begin, Workload.brokerLogSummary(options.workDir()), notes);
  }

  /** The round starts once the restarted broker has answered a publish (the producer has reconnected). */
  static long awaitFirstAnswer(Workload workload, long readyAt) {
    // no failure here: a producer that never reconnects shows in the analysis
    Await.holdsWithin("a publish answered after " + readyAt, Duration.ofSeconds(30),
        () -> workload.lastAnswerAtMs() >= readyAt);
    return System.currentTimeMillis();
  }

  private void say(String line) {
    String stamped = LocalTime.now() + " " + line;
    System.out.println("[crash-loop] " + stamped);
    synchronized (journal) {
      journal.append(stamped).append('\n');
    }
  }

  /**
   * {@code CrashLoop ROUNDS DIR [--rate N] [--seed S] [--launcher CMD]}: runs the loop, prints the
   * figures, exits 0 if no guarantee was violated, 1 otherwise, 2 on bad arguments.
   */
  public static void main(String[] args) {
    Options options = null;
    try {
      if (args.length < 2 || args.length % 2 != 0) {
        throw new IllegalArgumentException("expected ROUNDS DIR and option pairs");
      }
      options = Options.of(Integer.parseInt(args[0]), Path.of(args[1]).toAbsolutePath());
      for (int i = 2; i + 1 < args.length; i += 2) {
        switch (args[i]) {
          case "--rate" -> options = options.withRate(Integer.parseInt(args[i + 1]));
          case "--seed" -> options = options.withSeed(Long.parseLong(args[i + 1]));
          case "--launcher" -> options = options.withLauncher(Arrays.asList(args[i + 1].trim().split("\\s+")));
          default -> throw new IllegalArgumentException("unknown option " + args[i]);
        }
      }
    } catch (IllegalArgumentException e) {
      System.err.println("CrashLoop: " + e.getMessage()
          + "\nusage: CrashLoop ROUNDS DIR [--rate N] [--seed S] [--launcher CMD]");
      System.exit(2);
    }
    int status;
    try {
      Workload.Report report = run(options);
      System.out.print(report.format());
      Files.writeString(options.workDir().resolve("crash-loop.report"), report.format());
      status = report.ok() ? 0 : 1;
    } catch (Throwable t) {
      System.err.println("CrashLoop failed: " + t);
      t.printStackTrace();
      status = 1;
    }
    System.exit(status);
  }
}
