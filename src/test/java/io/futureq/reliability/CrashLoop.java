package io.futureq.reliability;

import io.futureq.api.grpc.AckLevel;
import io.futureq.api.grpc.GroupStats;
import io.futureq.api.grpc.TopicStats;
import io.futureq.client.ConsumerOptions;
import io.futureq.client.FutureQClient;
import io.futureq.client.FutureQConsumer;
import io.futureq.client.FutureQProducer;
import io.futureq.client.OutgoingMessage;
import io.futureq.client.ProducerOptions;
import io.futureq.client.ReceivedMessage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The crash loop: a broker process is SIGKILLed at a random moment of every round and started
 * again on the same data directory and ports, while a producer (ack level QUORUM) publishes keyed
 * messages due 0-3 s later at a steady rate and a consumer (group "g", auto-ack) records every
 * delivery. At the end it drains, waits out the in-flight timeout, and checks the guarantees:
 *
 * <ul>
 *   <li><b>lost</b>: a publish the broker acknowledged whose payload (or returned message id) was
 *       never delivered;
 *   <li><b>early</b>: a delivery received before its {@code due_at_unix_ms}, or with a due time
 *       before the publish call plus its delay;
 *   <li><b>resurrected</b>: a message delivered again after a crash although the dead broker's
 *       storage, read between the kill and the restart ({@link StorageProbe}), already held its ack
 *       (deleted, or acked by the group); and any delivery, in a quiet window of in-flight-timeout
 *       + 2 s after the final drain, of a message that had been acked before;
 *   <li><b>pending</b>: messages still stored once everything was delivered and acked;
 *   <li><b>id reuse</b>: one message id carrying two different payloads.
 * </ul>
 *
 * Allowed and counted apart: redeliveries of messages whose ack was not yet durable at a crash, or
 * never acked (in flight at the crash), and payloads published twice under two ids because the
 * producer resent a batch whose answer the crash swallowed after the first copy had already been
 * acked. Reported for information: redeliveries of messages acked more than
 * {@code delete-batch-interval + 1 s} before the crash (the timing approximation of resurrection,
 * which a loaded machine can exceed without any bug: the storage probe tells the two apart), and the
 * oldest ack that storage did not hold yet at its crash, and acked messages delivered again with no
 * crash in between (allowed: with a 2 s in-flight timeout a starved broker can time a delivery out
 * before the consumer's ack arrives, or overflow and reset a stream whose output stalled that long).
 *
 * <p>Used by {@code CrashLoopTest} (10 rounds) and by {@code scripts/crash-loop.sh ROUNDS DIR}.
 */
public final class CrashLoop {
  static final String TOPIC = "crash-loop";
  static final String GROUP = "g";
  private static final Duration START = Duration.ofSeconds(90);

  /**
   * @param rounds kill-and-restart rounds
   * @param workDir config, data directory and one log per broker incarnation go here
   * @param ratePerSecond messages published per second
   * @param maxDelayMs delays are uniform in [0, maxDelayMs]
   * @param inFlightTimeoutMs the broker's {@code futureq.group.in-flight-timeout}
   * @param deleteBatchIntervalMs the broker's {@code futureq.topic.delete-batch-interval}
   * @param minKillMs earliest kill, after the round started (broker ready, first publish acked)
   * @param maxKillMs latest kill
   * @param launcher the CLI command ({@code bin/futureq}), or empty for {@code java -cp ...}
   * @param seed for delays and kill moments
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

    /** Acks older than this before a crash must have been deleted by it. */
    long deleteMarginMs() {
      return deleteBatchIntervalMs + 1000;
    }
  }

  /** One publish: what was asked, and what the broker answered. */
  static final class Published {
    final String payload;
    final long delayMs;
    final long sentAtMs;
    volatile String messageId;
    volatile long ackedAtMs;
    volatile String failure;

    Published(String payload, long delayMs, long sentAtMs) {
      this.payload = payload;
      this.delayMs = delayMs;
      this.sentAtMs = sentAtMs;
    }
  }

  /** One delivery as the consumer saw it; {@code ackAtMs} is when its handler returned (auto-ack). */
  record Received(String messageId, String payload, long dueAtMs, long receivedAtMs, int attempt, long ackAtMs) {
    @Override
    public String toString() {
      return "{id=" + messageId + " payload=" + payload + " due=" + dueAtMs + " received=" + receivedAtMs
          + " attempt=" + attempt + " ack=" + ackAtMs + "}";
    }
  }

  /** One broker incarnation: launched at {@code startedAtMs}, ready at {@code readyAtMs}, SIGKILL sent at {@code killedAtMs}. */
  record Life(long startedAtMs, long readyAtMs, long killedAtMs, long deadAtMs) {}

  /** The figures of one run; {@link #ok()} is false on any violation. */
  public record Report(int roundsSurvived, long seed, long elapsedMs, long publishes, long acked, long notAcked,
      long deliveries, long distinctMessages, long lost, long lostIds, long early, long earlyVsRequest,
      long resurrected, long redeliveredAckedLongBeforeCrash, long redeliveredAfterAckNoCrash,
      long redeliveredAfterCrash, long redeliveredUnacked, long acksNotDurableAtCrash, long ackLagMaxMs,
      long republished, long idReuse, long unknownPayloads, long quietDeliveries, long quietResurrected,
      long pendingAfter, boolean drained, Map<String, List<String>> examples, Map<String, Integer> brokerLog) {

    public boolean ok() {
      return acked > 0 && drained && lost == 0 && lostIds == 0 && early == 0 && earlyVsRequest == 0
          && resurrected == 0 && idReuse == 0 && unknownPayloads == 0
          && quietResurrected == 0 && pendingAfter == 0;
    }

    public String format() {
      StringBuilder out = new StringBuilder();
      out.append(String.format("crash loop: %d rounds survived (SIGKILL, exit 137) in %.1f s, seed %d%n",
          roundsSurvived, elapsedMs / 1000.0, seed));
      out.append(String.format("  published and acked by the broker   %d (of %d sends; %d not acked)%n", acked,
          publishes, notAcked));
      out.append(String.format("  deliveries                          %d, of %d distinct message ids%n", deliveries,
          distinctMessages));
      out.append(String.format("  lost (acked, never delivered)       %d by payload, %d by returned id%n", lost,
          lostIds));
      out.append(String.format("  early (received < due_at)           %d; due_at < publish call + delay: %d%n",
          early, earlyVsRequest));
      out.append(String.format("  resurrected (ack durable in storage at a crash, delivered after it)  %d%n",
          resurrected));
      out.append(String.format("  delivered in the final quiet window after an effective ack          %d "
          + "(of %d deliveries in the window)%n", quietResurrected, quietDeliveries));
      out.append(String.format("  event id reuse (one id, two payloads)  %d; unknown payloads %d%n", idReuse,
          unknownPayloads));
      out.append(String.format("  pending after drain                 %d%s%n", pendingAfter,
          drained ? "" : "  (NOT DRAINED in time)"));
      out.append(String.format("  allowed: redelivered after a crash  %d acked shortly before it, %d never acked "
          + "(in flight)%n", redeliveredAfterCrash, redeliveredUnacked));
      out.append(String.format("  allowed: republished under a new id (resend after a lost answer)  %d%n",
          republished));
      out.append(String.format("  info: acked > delete-batch-interval + 1 s before a crash yet delivered again  %d%n",
          redeliveredAckedLongBeforeCrash));
      out.append(String.format("  info: acked, then delivered again with no crash in between  %d (at-least-once: the "
          + "first delivery reached the consumer after its in-flight timeout, or the stream was reset)%n",
          redeliveredAfterAckNoCrash));
      out.append(String.format("  info: acks not yet durable at their crash  %d, the oldest %d ms before it%n",
          acksNotDurableAtCrash, ackLagMaxMs));
      examples.forEach((kind, list) -> out.append("  e.g. ").append(kind).append(": ").append(list).append('\n'));
      brokerLog.forEach((line, n) -> out.append(String.format("  broker log: %d x %s%n", n, line)));
      out.append(ok() ? "  RESULT: OK\n" : "  RESULT: VIOLATIONS\n");
      return out.toString();
    }
  }

  private final Options options;
  private final Random killMoments;
  private final Random delays;
  private final ConcurrentHashMap<String, Published> published = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<Received> received = new ConcurrentLinkedQueue<>();
  private final List<Life> lives = new ArrayList<>();
  private final AtomicLong lastAckAtMs = new AtomicLong();
  private final StringBuilder journal = new StringBuilder();
  private String target;
  /** Message id -> the life whose SIGKILL found its ack durable in storage (see {@link StorageProbe}). */
  private final Map<String, Integer> durableAt = new HashMap<>();

  private CrashLoop(Options options) {
    this.options = options;
    this.killMoments = new Random(options.seed());
    this.delays = new Random(options.seed() + 1);
  }

  public static Report run(Options options) throws Exception {
    return new CrashLoop(options).run();
  }

  private Report run() throws Exception {
    long begin = System.currentTimeMillis();
    String extra = String.join("\n",
        "futureq.group.in-flight-timeout = " + options.inFlightTimeoutMs() + "ms",
        "futureq.topic.delete-batch-interval = " + options.deleteBatchIntervalMs() + "ms");
    BrokerNode broker = BrokerNode.create(options.workDir(), extra, options.launcher());
    target = "127.0.0.1:" + broker.grpcPort;
    say("work dir " + options.workDir() + ", gRPC 127.0.0.1:" + broker.grpcPort + ", management :"
        + broker.managementPort + ", seed " + options.seed());
    ScheduledExecutorService publisher = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "crash-loop-publisher");
      t.setDaemon(true);
      return t;
    });
    int survived = 0;
    long quietStart;
    long quietEnd;
    boolean drained;
    long pendingAfter;
    try {
      long startedAt = System.currentTimeMillis();
      broker.start(START);
      long readyAt = System.currentTimeMillis();
      try (FutureQClient client = FutureQClient.builder().target(target)
          .requestTimeout(Duration.ofSeconds(10)).build()) {
        FutureQConsumer consumer = client.subscribe(TOPIC, GROUP, this::onDelivery,
            new ConsumerOptions(200, true, Duration.ofSeconds(1), Duration.ofMillis(50), 1));
        awaitGroup();
        FutureQProducer producer = client.producer(new ProducerOptions(100, 1 << 20, Duration.ofMillis(1), 100_000,
            Duration.ofSeconds(30), AckLevel.ACK_LEVEL_QUORUM, Duration.ofMillis(50), Duration.ofSeconds(60),
            Duration.ofSeconds(5)));
        AtomicLong seq = new AtomicLong();
        long periodMicros = 1_000_000L / options.ratePerSecond();
        ScheduledFuture<?> publishing = publisher.scheduleAtFixedRate(() -> publishOne(producer, seq.incrementAndGet()),
            0, periodMicros, TimeUnit.MICROSECONDS);

        for (int round = 1; round <= options.rounds(); round++) {
          long roundStart = awaitFirstAck(readyAt);
          long killAfter = options.minKillMs() + (long) (killMoments.nextDouble()
              * (options.maxKillMs() - options.minKillMs()));
          Thread.sleep(Math.max(0, roundStart + killAfter - System.currentTimeMillis()));
          long killedAt = System.currentTimeMillis();
          long pid = broker.pid();
          broker.kill();
          long deadAt = System.currentTimeMillis();
          lives.add(new Life(startedAt, readyAt, killedAt, deadAt));
          survived = round;
          probeStorage(broker, killedAt);
          startedAt = System.currentTimeMillis();
          broker.start(START);
          readyAt = System.currentTimeMillis();
          say(String.format("round %d/%d: SIGKILL pid %d %d ms into the round (exit 137); acked %d, delivered %d; "
              + "ready again after %.1f s", round, options.rounds(), pid, killedAt - roundStart, ackedCount(),
              received.size(), (readyAt - killedAt) / 1000.0));
        }
        awaitFirstAck(readyAt);
        Thread.sleep(1000);
        publishing.cancel(false);
        publisher.shutdown();
        publisher.awaitTermination(10, TimeUnit.SECONDS);
        producer.flush();
        long outstandingUntil = System.currentTimeMillis() + 60_000;
        while (producer.outstanding() > 0 && System.currentTimeMillis() < outstandingUntil) {
          Thread.sleep(50);
        }
        drained = awaitDrained(Duration.ofMillis(options.maxDelayMs() + 60_000));
        quietStart = System.currentTimeMillis();
        Thread.sleep(options.inFlightTimeoutMs() + 2000);
        quietEnd = System.currentTimeMillis();
        lives.add(new Life(startedAt, readyAt, Long.MAX_VALUE, Long.MAX_VALUE));
        pendingAfter = awaitPendingZero(Duration.ofSeconds(15));
        say(String.format("drained=%s, quiet window %d ms, pending after %d%s", drained, quietEnd - quietStart,
            pendingAfter, consumer.terminated().isDone() ? "; the consumer had given up: "
                + consumer.terminated().handle((v, e) -> String.valueOf(e)).join() : ""));
        consumer.close();
        producer.close();
      }
    } catch (Throwable t) {
      say("FAILED: " + t + "\nbroker output tail:\n" + broker.tail(60));
      throw t;
    } finally {
      publisher.shutdownNow();
      broker.close();
      Files.writeString(options.workDir().resolve("crash-loop.journal"), journal.toString());
      dump();
    }
    return analyze(survived, begin, quietStart, drained, pendingAfter);
  }

  /** Between the kill and the restart: which delivered messages does the dead broker's storage hold as acked? */
  private void probeStorage(BrokerNode broker, long killedAt) throws Exception {
    Set<String> candidates = new HashSet<>();
    for (Received r : received) {
      if (r.receivedAtMs() < killedAt && !durableAt.containsKey(r.messageId())) {
        candidates.add(r.messageId());
      }
    }
    int life = lives.size() - 1;
    StorageProbe.durablyAcked(broker.data, TOPIC, GROUP, candidates).forEach(id -> durableAt.put(id, life));
  }

  /** Raw records for offline analysis: publishes.csv, deliveries.csv, lives.csv in the work directory. */
  private void dump() throws java.io.IOException {
    StringBuilder p = new StringBuilder("payload,delay_ms,sent_at_ms,message_id,acked_at_ms,failure\n");
    published.values().forEach(x -> p.append(x.payload).append(',').append(x.delayMs).append(',').append(x.sentAtMs)
        .append(',').append(x.messageId == null ? "" : x.messageId).append(',').append(x.ackedAtMs).append(',')
        .append(x.failure == null ? "" : x.failure.replace(',', ';').replace('\n', ' ')).append('\n'));
    Files.writeString(options.workDir().resolve("publishes.csv"), p);
    StringBuilder d = new StringBuilder("message_id,payload,due_at_ms,received_at_ms,attempt,ack_at_ms,durable_at_life\n");
    received.forEach(r -> d.append(r.messageId()).append(',').append(r.payload()).append(',').append(r.dueAtMs())
        .append(',').append(r.receivedAtMs()).append(',').append(r.attempt()).append(',').append(r.ackAtMs())
        .append(',').append(durableAt.getOrDefault(r.messageId(), -1)).append('\n'));
    Files.writeString(options.workDir().resolve("deliveries.csv"), d);
    StringBuilder l = new StringBuilder("life,started_at_ms,ready_at_ms,killed_at_ms,dead_at_ms\n");
    for (int i = 0; i < lives.size(); i++) {
      Life x = lives.get(i);
      l.append(i).append(',').append(x.startedAtMs()).append(',').append(x.readyAtMs()).append(',')
          .append(x.killedAtMs()).append(',').append(x.deadAtMs()).append('\n');
    }
    Files.writeString(options.workDir().resolve("lives.csv"), l);
  }

  private void publishOne(FutureQProducer producer, long n) {
    String payload = "m-" + Long.toHexString(options.seed()) + "-" + n;
    long delay = (long) (delays.nextDouble() * (options.maxDelayMs() + 1));
    Published p = new Published(payload, delay, System.currentTimeMillis());
    published.put(payload, p);
    producer.send(OutgoingMessage.to(TOPIC).payload(payload).key(payload).delay(Duration.ofMillis(delay)).build())
        .whenComplete((id, failure) -> {
          if (failure == null) {
            p.messageId = id.messageId();
            p.ackedAtMs = System.currentTimeMillis();
            lastAckAtMs.accumulateAndGet(p.ackedAtMs, Math::max);
          } else {
            p.failure = String.valueOf(failure.getMessage());
          }
        });
  }

  private void onDelivery(ReceivedMessage m) {
    String payload = new String(m.payload(), StandardCharsets.UTF_8);
    long ackAt = System.currentTimeMillis();
    received.add(new Received(m.messageId(), payload, m.dueAtUnixMs(), m.receivedAtUnixMs(), m.attempt(), ackAt));
    // returning acks it (auto-ack)
  }

  /** The round starts once the restarted broker has acked a publish (the producer has reconnected). */
  private long awaitFirstAck(long readyAt) throws InterruptedException {
    long until = System.currentTimeMillis() + 30_000;
    while (lastAckAtMs.get() < readyAt && System.currentTimeMillis() < until) {
      Thread.sleep(20);
    }
    if (lastAckAtMs.get() < readyAt) {
      say("no publish acked within 30 s of the broker being ready");
    }
    return System.currentTimeMillis();
  }

  private void awaitGroup() throws Exception {
    long until = System.currentTimeMillis() + 30_000;
    try (FutureQClient admin = FutureQClient.builder().target(target).build()) {
      while (System.currentTimeMillis() < until) {
        try {
          TopicStats stats = admin.topicStats(TOPIC).get(10, TimeUnit.SECONDS);
          if (stats.getGroupsList().stream().anyMatch(g -> g.getName().equals(GROUP) && g.getConsumers() > 0)) {
            return;
          }
        } catch (Exception e) {
          // the topic does not exist until the group is created
        }
        Thread.sleep(100);
      }
    }
    throw new AssertionError("group " + GROUP + " has no consumer 30 s after subscribing");
  }

  private boolean awaitDrained(Duration within) throws InterruptedException {
    long until = System.currentTimeMillis() + within.toMillis();
    while (System.currentTimeMillis() < until) {
      Set<String> delivered = new HashSet<>();
      received.forEach(r -> delivered.add(r.payload()));
      if (published.values().stream().allMatch(p -> p.messageId == null || delivered.contains(p.payload))) {
        return true;
      }
      Thread.sleep(100);
    }
    return false;
  }

  /** Pending messages on the topic once every ack has been flushed; waits up to {@code within} for 0. */
  private long awaitPendingZero(Duration within) throws Exception {
    long until = System.currentTimeMillis() + within.toMillis();
    long pending = -1;
    try (FutureQClient admin = FutureQClient.builder().target(target).build()) {
      while (System.currentTimeMillis() < until) {
        try {
          TopicStats stats = admin.topicStats(TOPIC).get(10, TimeUnit.SECONDS);
          long inFlight = stats.getGroupsList().stream().mapToLong(GroupStats::getInFlight).sum();
          pending = stats.getPending();
          if (pending == 0 && inFlight == 0) {
            return 0;
          }
        } catch (Exception e) {
          say("topic stats failed: " + e.getMessage());
        }
        Thread.sleep(250);
      }
    }
    return pending;
  }

  private long ackedCount() {
    return published.values().stream().filter(p -> p.messageId != null).count();
  }

  private void say(String line) {
    String stamped = java.time.LocalTime.now() + " " + line;
    System.out.println("[crash-loop] " + stamped);
    journal.append(stamped).append('\n');
  }

  // ---------------------------------------------------------------------------------------------
  // Analysis

  private int lifeOf(long t) {
    for (int i = 0; i < lives.size(); i++) {
      Life l = lives.get(i);
      if (t >= l.startedAtMs() && t < l.killedAtMs()) {
        return i;
      }
    }
    return -1;
  }

  /**
   * An ack the broker must have seen: sent on the stream that received the delivery (same broker
   * incarnation, before its SIGKILL was sent), well within the in-flight timeout.
   */
  private boolean effectiveAck(Received r) {
    int life = lifeOf(r.receivedAtMs());
    return life >= 0 && life == lifeOf(r.ackAtMs())
        && r.ackAtMs() - r.receivedAtMs() < Math.min(1000, options.inFlightTimeoutMs() / 2);
  }

  private Report analyze(int survived, long begin, long quietStart, boolean drained, long pendingAfter) {
    Map<String, List<String>> examples = new TreeMap<>();
    List<Received> all = new ArrayList<>(received);
    all.sort(Comparator.comparingLong(Received::receivedAtMs));
    long acked = ackedCount();
    long publishes = published.size();

    Map<String, List<Received>> byId = new HashMap<>();
    Map<String, Set<String>> idsOfPayload = new HashMap<>();
    Map<String, Set<String>> payloadsOfId = new HashMap<>();
    for (Received r : all) {
      byId.computeIfAbsent(r.messageId(), k -> new ArrayList<>()).add(r);
      idsOfPayload.computeIfAbsent(r.payload(), k -> new HashSet<>()).add(r.messageId());
      payloadsOfId.computeIfAbsent(r.messageId(), k -> new HashSet<>()).add(r.payload());
    }
    for (Published p : published.values()) {
      if (p.messageId != null) {
        payloadsOfId.computeIfAbsent(p.messageId, k -> new HashSet<>()).add(p.payload);
      }
    }

    long lost = 0;
    long lostIds = 0;
    for (Published p : published.values()) {
      if (p.messageId == null) {
        continue;
      }
      if (!idsOfPayload.containsKey(p.payload)) {
        lost++;
        example(examples, "lost", p.payload + " id " + p.messageId + " acked at " + p.ackedAtMs + " delay "
            + p.delayMs);
      }
      if (!byId.containsKey(p.messageId)) {
        lostIds++;
        example(examples, "lost id", p.payload + " id " + p.messageId);
      }
    }

    long early = 0;
    long earlyVsRequest = 0;
    long unknown = 0;
    for (Received r : all) {
      if (r.receivedAtMs() < r.dueAtMs()) {
        early++;
        example(examples, "early", r + " by " + (r.dueAtMs() - r.receivedAtMs()) + " ms");
      }
      Published p = published.get(r.payload());
      if (p == null) {
        unknown++;
        example(examples, "unknown payload", r.toString());
      } else if (r.dueAtMs() < p.sentAtMs + p.delayMs) {
        earlyVsRequest++;
        example(examples, "due before publish + delay", r + " sent " + p.sentAtMs + " delay " + p.delayMs);
      }
    }

    long idReuse = payloadsOfId.values().stream().filter(s -> s.size() > 1).count();
    payloadsOfId.forEach((id, payloads) -> {
      if (payloads.size() > 1) {
        example(examples, "id reuse", id + " -> " + payloads);
      }
    });
    long republished = 0;
    for (Map.Entry<String, Set<String>> e : idsOfPayload.entrySet()) {
      if (e.getValue().size() > 1) {
        republished++;
        Published p = published.get(e.getKey());
        List<String> copies = new ArrayList<>();
        for (String id : e.getValue()) {
          Received first = byId.get(id).get(0);
          copies.add(id + " first received " + first.receivedAtMs() + " in life " + lifeOf(first.receivedAtMs())
              + ", ack durable at the crash of life " + durableAt.getOrDefault(id, -1));
        }
        example(examples, "republished (allowed)", e.getKey() + (p == null ? "" : " sent " + p.sentAtMs + " in life "
            + lifeOf(p.sentAtMs) + ", answered with " + p.messageId) + ": " + copies);
      }
    }

    long resurrected = 0;
    long byTiming = 0;
    long noCrash = 0;
    long afterCrash = 0;
    long unacked = 0;
    long quietDeliveries = 0;
    long quietResurrected = 0;
    for (List<Received> deliveries : byId.values()) {
      for (int j = 1; j < deliveries.size(); j++) {
        Received again = deliveries.get(j);
        Verdict verdict = Verdict.UNACKED;
        Received culprit = null;
        for (int i = 0; i < j; i++) {
          Received earlier = deliveries.get(i);
          if (!effectiveAck(earlier) || earlier.ackAtMs() >= again.receivedAtMs()) {
            continue;
          }
          long killedAt = lives.get(lifeOf(earlier.ackAtMs())).killedAtMs();
          Verdict v = again.receivedAtMs() < killedAt ? Verdict.ACKED_NO_CRASH
              : killedAt - earlier.ackAtMs() > options.deleteMarginMs() ? Verdict.ACKED_LONG_BEFORE_CRASH
              : Verdict.ACKED_JUST_BEFORE_CRASH;
          if (v.ordinal() > verdict.ordinal()) {
            verdict = v;
            culprit = earlier;
          }
        }
        Integer durable = durableAt.get(again.messageId());
        boolean exact = durable != null && durable + 1 < lives.size()
            && again.receivedAtMs() >= lives.get(durable + 1).startedAtMs();
        if (exact) {
          resurrected++;
          example(examples, "resurrected (ack durable at the crash of life " + durable + ")",
              deliveries.subList(0, j) + " then " + again);
        } else if (verdict == Verdict.ACKED_NO_CRASH) {
          noCrash++;
          example(examples, "acked then redelivered without a crash", culprit + " then " + again);
        } else if (verdict == Verdict.UNACKED) {
          unacked++;
        } else {
          afterCrash++;
        }
        if (verdict == Verdict.ACKED_LONG_BEFORE_CRASH) {
          byTiming++;
          example(examples, "acked > " + options.deleteMarginMs() + " ms before a crash, delivered again ("
              + (exact ? "ack was durable" : "ack not yet durable at the crash") + ")", culprit + " acked "
              + (lives.get(lifeOf(culprit.ackAtMs())).killedAtMs() - culprit.ackAtMs())
              + " ms before the crash, then " + again);
        }
        if (again.receivedAtMs() >= quietStart && (exact || verdict != Verdict.UNACKED)) {
          quietResurrected++;
          example(examples, "quiet window", again.toString());
        }
      }
    }
    for (Received r : all) {
      if (r.receivedAtMs() >= quietStart) {
        quietDeliveries++;
      }
    }
    // the oldest ack (effective, in the life a crash ended) that storage did not hold yet at that crash
    long ackLagMax = 0;
    long acksNotDurable = 0;
    for (Received r : all) {
      int life = lifeOf(r.ackAtMs());
      if (!effectiveAck(r) || life + 1 >= lives.size()) {
        continue;
      }
      Integer durable = durableAt.get(r.messageId());
      if (durable == null || durable > life) {
        acksNotDurable++;
        ackLagMax = Math.max(ackLagMax, lives.get(life).killedAtMs() - r.ackAtMs());
      }
    }
    return new Report(survived, options.seed(), System.currentTimeMillis() - begin, publishes, acked,
        publishes - acked, all.size(), byId.size(), lost, lostIds, early, earlyVsRequest, resurrected, byTiming,
        noCrash, afterCrash, unacked, acksNotDurable, ackLagMax, republished, idReuse, unknown, quietDeliveries,
        quietResurrected, pendingAfter, drained, examples, brokerLogSummary());
  }

  /** WARN and ERROR lines of every broker incarnation's output, counted by their text (timestamps cut). */
  private Map<String, Integer> brokerLogSummary() {
    Map<String, Integer> counts = new TreeMap<>();
    try (var files = Files.list(options.workDir())) {
      for (Path log : files.filter(f -> f.getFileName().toString().matches("broker-\\d+\\.log")).toList()) {
        for (String line : Files.readAllLines(log)) {
          if (line.contains(" WARN ") || line.contains(" ERROR ") || line.startsWith("Exception")
              || line.contains("OutOfMemoryError")) {
            String text = line.replaceFirst("^\\d\\d:\\d\\d:\\d\\d\\.\\d+ ", "");
            counts.merge(text.length() > 160 ? text.substring(0, 160) + "..." : text, 1, Integer::sum);
          }
        }
      }
    } catch (java.io.IOException e) {
      counts.put("(cannot read broker logs: " + e + ")", 1);
    }
    return counts;
  }

  /** Ordered by severity: the worst verdict over all earlier deliveries wins. */
  private enum Verdict { UNACKED, ACKED_JUST_BEFORE_CRASH, ACKED_LONG_BEFORE_CRASH, ACKED_NO_CRASH }

  private static void example(Map<String, List<String>> examples, String kind, String text) {
    List<String> list = examples.computeIfAbsent(kind, k -> new ArrayList<>());
    if (list.size() < 5) {
      list.add(text);
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
      Report report = run(options);
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
