package io.futureq.cli;

import io.futureq.api.grpc.AckLevel;
import io.futureq.client.ConsumerOptions;
import io.futureq.client.FutureQClient;
import io.futureq.client.FutureQConsumer;
import io.futureq.client.FutureQProducer;
import io.futureq.client.OutgoingMessage;
import io.futureq.client.ProducerOptions;
import io.grpc.Channel;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import org.HdrHistogram.ConcurrentHistogram;

/**
 * One benchmark run: consumers first, then producers, then wait for every message. In burst mode every message is
 * due at one instant, the start of publishing plus {@code delayMin}, and the run records when the last publish was
 * acked, so the report can tell a burst stored before its due instant from one that was still being published.
 */
final class BenchRun {
  /** Longest delay of the warm-up's messages: short, so the warm-up ends soon after its publishing. */
  static final Duration WARMUP_MAX_DELAY = Duration.ofSeconds(1);

  /**
   * @param group the first group's name; further groups ({@code groups} > 1) are named {@code group-2} and on
   * @param consumers consumers in each group
   * @param rate messages per second the producers publish together, paced; 0 for as fast as they can
   * @param linger how long a producer's batch waits for more messages; null for the client's default
   * @param ackEach consumers on plain grpc-java ({@link AckEachConsumer}) that ack each delivery in a frame of its
   *     own, instead of the Java client
   */
  record Plan(String topic, String group, int groups, int messages, int payloadBytes, Duration delayMin,
      Duration delayMax, boolean burst, int producers, int consumers, int batch, int maxInFlight,
      AckLevel ackLevel, Duration extraWait, int publishWindow, long rate, Duration linger, boolean manualAck,
      boolean ackEach) {
    /**
     * The warm-up for this plan: the same producers, batch, credit, payload and ack level on its own topic, due
     * 0-1 s after publishing, not paced. It always has consumers, so it leaves nothing stored, even before a
     * publish-only run.
     */
    Plan warmup(int warmupMessages) {
      return new Plan(topic + "-warmup", group, groups, warmupMessages, payloadBytes, Duration.ZERO, WARMUP_MAX_DELAY,
          false, producers, Math.max(1, consumers), batch, maxInFlight, ackLevel, extraWait, publishWindow, 0, linger,
          manualAck, ackEach);
    }

    String groupName(int g) {
      return g == 0 ? group : group + "-" + (g + 1);
    }
  }

  /**
   * What a run measured; {@code publishLatency} is each send's time to its acknowledgement (failures included);
   * {@code received}, {@code duplicates} and {@code missing} add up over the groups (a message
   * is received once per group). Instants are Unix milliseconds; {@code burstDueMs} is 0 outside burst mode and
   * {@code lastAckMs} 0 when no publish was acked. {@code drainBrokerCpuNanos}: in burst mode with a broker to
   * measure, the broker's CPU from the due instant until every message was received (its deliveries, acks and
   * deletes, no publishing), else null.
   */
  record Result(Plan plan, long publishNanos, long published, long publishErrors, long received, long duplicates,
      long missing, long firstDeliveryMs, long lastDeliveryMs, long burstDueMs, long lastAckMs,
      ConcurrentHistogram lateness, ConcurrentHistogram publishLatency, Long drainBrokerCpuNanos) {
    double publishRate() {
      return published * 1e9 / Math.max(1, publishNanos);
    }

    double consumeRate() {
      return received * 1000.0 / Math.max(1, lastDeliveryMs - firstDeliveryMs);
    }

    /** Burst mode: the due instant minus the last publish ack; negative when publishing ran past the instant. */
    OptionalLong burstMarginMs() {
      return plan.burst() && lastAckMs > 0 ? OptionalLong.of(burstDueMs - lastAckMs) : OptionalLong.empty();
    }

    /** Burst mode: whether every acked publish was acked before the due instant. */
    boolean storedBeforeDue() {
      return burstMarginMs().orElse(0) > 0;
    }

    /** Burst mode with deliveries: the last delivery minus the due instant. */
    OptionalLong burstDrainMs() {
      return plan.burst() && received > 0 ? OptionalLong.of(lastDeliveryMs - burstDueMs) : OptionalLong.empty();
    }
  }

  private final FutureQClient client;
  /** Where {@link AckEachConsumer}s subscribe; null unless the plan asks for them. */
  private final Channel channel;
  /** The broker's CPU time so far, or null without a broker to measure. */
  private final LongSupplier brokerCpuNanos;
  private final Plan plan;
  private final PrintWriter progress;
  private final String label;
  /** The message ids each group received. */
  private final List<IdSet> seen = new ArrayList<>();
  private final AtomicLong duplicates = new AtomicLong();
  /** Acked publishes when ids are not tracked (publish-only runs). */
  private final AtomicLong acked = new AtomicLong();
  private final AtomicLong lastAck = new AtomicLong();
  private final AtomicLong firstDelivery = new AtomicLong(Long.MAX_VALUE);
  private final AtomicLong lastDelivery = new AtomicLong();
  private final ConcurrentHistogram lateness = new ConcurrentHistogram(3_600_000_000L, 3);
  /** From each send to its acknowledgement, in microseconds (the client's batching included). */
  private final ConcurrentHistogram publishLatency = new ConcurrentHistogram(3_600_000_000L, 3);

  /**
   * {@code progress} may be null; {@code label} prefixes its phase names. {@code channel} is where {@code ackEach}
   * consumers subscribe, {@code brokerCpuNanos} reads the broker's CPU time (null: not measured).
   */
  BenchRun(FutureQClient client, Channel channel, LongSupplier brokerCpuNanos, Plan plan, PrintWriter progress,
      String label) {
    this.client = client;
    this.channel = channel;
    this.brokerCpuNanos = brokerCpuNanos;
    this.plan = plan;
    // Sized up front: rehashing millions of ids would be measured as consumer time.
    for (int g = 0; g < plan.groups(); g++) {
      seen.add(new IdSet(capacity()));
    }
    this.progress = progress;
    this.label = label;
  }

  Result run() throws Exception {
    List<AutoCloseable> consumers = plan.ackEach() ? subscribeAckEach() : subscribe();
    long burstDue = plan.burst() ? System.currentTimeMillis() + plan.delayMin().toMillis() : 0;
    IdSet published = new IdSet(capacity());
    AtomicLong errors = new AtomicLong();
    long start = System.nanoTime();
    List<Thread> producers = new ArrayList<>();
    for (int p = 0; p < plan.producers(); p++) {
      int share = plan.messages() / plan.producers() + (p < plan.messages() % plan.producers() ? 1 : 0);
      Thread t = new Thread(() -> produce(share, burstDue, published, errors), "bench-producer-" + p);
      producers.add(t);
      t.start();
    }
    while (producers.stream().anyMatch(Thread::isAlive)) {
      report("publishing", published.size() + acked.get());
      producers.get(0).join(500);
    }
    for (Thread t : producers) {
      t.join();
    }
    long publishNanos = System.nanoTime() - start;
    if (plan.consumers() == 0) {
      clearProgress();
      return new Result(plan, publishNanos, acked.get(), errors.get(), 0, 0, 0, 0, 0, burstDue, lastAck.get(),
          lateness, publishLatency, null);
    }
    Long drainCpu = awaitDeliveries(published, burstDue);
    for (AutoCloseable consumer : consumers) {
      consumer.close();
    }
    long missing = 0;
    long received = 0;
    for (IdSet group : seen) {
      missing += published.missingFrom(group);
      received += group.size();
    }
    clearProgress();
    return new Result(plan, publishNanos, published.size(), errors.get(), received, duplicates.get(), missing,
        firstDelivery.get(), lastDelivery.get(), burstDue, lastAck.get(), lateness, publishLatency, drainCpu);
  }

  private List<AutoCloseable> subscribe() throws InterruptedException {
    List<FutureQConsumer> consumers = new ArrayList<>();
    ConsumerOptions options = ConsumerOptions.defaults().withMaxInFlight(plan.maxInFlight());
    for (int i = 0; i < plan.consumers() * plan.groups(); i++) {
      IdSet seenByGroup = seen.get(i / Math.max(1, plan.consumers()));
      consumers.add(client.subscribe(plan.topic(), plan.groupName(i / plan.consumers()), m -> {
        received(seenByGroup, m.messageId(), m.dueAtUnixMs());
        if (plan.manualAck()) {
          m.ack(); // as an application acks each message once it has handled it
        }
      }, plan.manualAck() ? options.withManualAck() : options));
    }
    for (FutureQConsumer consumer : consumers) {
      try {
        consumer.subscribed().get(30, TimeUnit.SECONDS);
      } catch (ExecutionException | TimeoutException e) {
        throw new IllegalStateException("subscribing to " + plan.topic() + " failed: " + e.getMessage(), e);
      }
    }
    return new ArrayList<>(consumers);
  }

  private List<AutoCloseable> subscribeAckEach() throws InterruptedException {
    List<AckEachConsumer> consumers = new ArrayList<>();
    for (int i = 0; i < plan.consumers() * plan.groups(); i++) {
      IdSet seenByGroup = seen.get(i / Math.max(1, plan.consumers()));
      consumers.add(new AckEachConsumer(channel, plan.topic(), plan.groupName(i / plan.consumers()),
          plan.maxInFlight(), d -> received(seenByGroup, d.getMessageId(), d.getDueAtUnixMs())));
    }
    for (AckEachConsumer consumer : consumers) {
      try {
        consumer.subscribed().get(30, TimeUnit.SECONDS);
      } catch (ExecutionException | TimeoutException e) {
        throw new IllegalStateException("subscribing to " + plan.topic() + " failed: " + e.getMessage(), e);
      }
    }
    return new ArrayList<>(consumers);
  }

  /** Ids a set of this run may hold: every message, and room for some the broker should not have sent. */
  private int capacity() {
    return plan.consumers() == 0 ? 16 : plan.messages() + 1024;
  }

  /** What every consumer does with a delivery before it acks: counts it and its lateness. */
  private void received(IdSet seenByGroup, String messageId, long dueAtMs) {
    // Microseconds: the wall clock reads finer than currentTimeMillis, and lateness is ms-sized.
    Instant at = Instant.now();
    long now = at.toEpochMilli();
    if (!seenByGroup.add(messageId)) {
      duplicates.incrementAndGet();
    }
    long nowUs = at.getEpochSecond() * 1_000_000L + at.getNano() / 1000;
    lateness.recordValue(Math.max(0, nowUs - dueAtMs * 1000));
    firstDelivery.accumulateAndGet(now, Math::min);
    lastDelivery.accumulateAndGet(now, Math::max);
  }

  /**
   * Waits until every acked message was received, or {@code extraWait} past the last due time. Returns, in burst
   * mode with a broker to measure, the broker's CPU from the due instant to then (null otherwise).
   */
  private Long awaitDeliveries(IdSet published, long burstDue) throws InterruptedException {
    long now = System.currentTimeMillis();
    long lastDue = plan.burst() ? Math.max(now, burstDue) : now + plan.delayMax().toMillis();
    long deadline = lastDue + plan.extraWait().toMillis();
    Long cpuAtDue = null;
    if (plan.burst() && brokerCpuNanos != null && now < burstDue) {
      Thread.sleep(burstDue - now);
      cpuAtDue = brokerCpuNanos.getAsLong();
    }
    // Sizes first: a full containsAll every poll would be measured as client CPU. Polled often, so that the CPU of
    // a drain holds little of the broker's idle time after it.
    while (seen.stream().anyMatch(group -> group.size() < published.size() || published.missingFrom(group) > 0)
        && System.currentTimeMillis() < deadline) {
      report("consuming", seen.stream().mapToLong(IdSet::size).min().orElse(0));
      Thread.sleep(20);
    }
    Long drainCpu = cpuAtDue == null ? null : brokerCpuNanos.getAsLong() - cpuAtDue;
    // A short grace period, so that a duplicate arriving just behind the last message is counted.
    Thread.sleep(200);
    return drainCpu;
  }

  private void produce(int count, long burstDue, IdSet published, AtomicLong errors) {
    byte[] payload = new byte[plan.payloadBytes()];
    Arrays.fill(payload, (byte) 'x');
    ProducerOptions options = ProducerOptions.defaults().withBatchMessages(plan.batch()).withAckLevel(plan.ackLevel())
        .withMaxOutstandingMessages(plan.publishWindow());
    if (plan.linger() != null) {
      options = options.withLinger(plan.linger());
    }
    boolean track = plan.consumers() > 0;
    AtomicLong done = new AtomicLong();
    try (FutureQProducer producer = client.producer(options)) {
      ThreadLocalRandom random = ThreadLocalRandom.current();
      long min = plan.delayMin().toMillis();
      long max = Math.max(min, plan.delayMax().toMillis());
      // Paced: this producer's share of the rate, each send at its own instant (never a burst to catch up).
      long gapNanos = plan.rate() == 0 ? 0 : 1_000_000_000L * plan.producers() / plan.rate();
      long next = System.nanoTime();
      for (int i = 0; i < count; i++) {
        if (gapNanos > 0) {
          next += gapNanos;
          long wait = next - System.nanoTime();
          if (wait > 0) {
            LockSupport.parkNanos(wait);
          }
        }
        OutgoingMessage.Builder m = OutgoingMessage.to(plan.topic()).payload(payload);
        if (plan.burst()) {
          m.at(Instant.ofEpochMilli(burstDue));
        } else {
          m.delay(Duration.ofMillis(min == max ? min : random.nextLong(min, max + 1)));
        }
        long sentNanos = System.nanoTime();
        producer.send(m.build()).whenComplete((id, e) -> {
          publishLatency.recordValue(Math.max(0, (System.nanoTime() - sentNanos) / 1000));
          if (e != null) {
            errors.incrementAndGet();
          } else {
            lastAck.accumulateAndGet(System.currentTimeMillis(), Math::max);
            if (track) {
              published.add(id.messageId());
            } else {
              acked.incrementAndGet();
            }
          }
          done.incrementAndGet();
        });
      }
      producer.flush();
      while (done.get() < count) {
        try {
          Thread.sleep(5);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  private void report(String phase, long done) {
    if (progress == null) {
      return;
    }
    int width = 30;
    int filled = (int) Math.min(width, done * width / Math.max(1, plan.messages()));
    progress.print("\r" + label + phase + " [" + "#".repeat(filled) + " ".repeat(width - filled) + "] " + done + "/"
        + plan.messages());
    progress.flush();
  }

  private void clearProgress() {
    if (progress != null) {
      progress.print("\r" + " ".repeat(70) + "\r");
      progress.flush();
    }
  }
}
