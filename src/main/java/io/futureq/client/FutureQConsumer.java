package io.futureq.client;

import io.futureq.api.grpc.AckFrame;
import io.futureq.api.grpc.ConsumerClient;
import io.futureq.api.grpc.ConsumerFrame;
import io.futureq.api.grpc.Delivery;
import io.futureq.api.grpc.NackFrame;
import io.futureq.api.grpc.SubscribeInit;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.BoundedSourceQueue;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A subscription: runs the handler for each delivery on its own thread, in arrival order, acks
 * (auto-ack) or leaves acking to the handler, and resubscribes with backoff when the stream is
 * lost. Deliveries unacked when a stream is lost are redelivered by the broker.
 */
public final class FutureQConsumer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FutureQConsumer.class);

  private final FutureQClient client;
  private final String topic;
  private final String group;
  private final MessageHandler handler;
  private final ConsumerOptions options;
  private final ExecutorService worker;
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "futureq-consumer-timer");
    t.setDaemon(true);
    return t;
  });
  private static final int ACK_BATCH = 256;
  private static final long ACK_FLUSH_MS = 2;

  private final CompletableFuture<Void> terminated = new CompletableFuture<>();
  private ConsumerClient grpc;
  private Stream stream;
  private int failures;
  private boolean closed;

  FutureQConsumer(FutureQClient client, String topic, String group, MessageHandler handler, ConsumerOptions options) {
    this.client = client;
    this.topic = topic;
    this.group = group;
    this.handler = handler;
    this.options = options;
    this.worker = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "futureq-consumer-" + topic);
      t.setDaemon(true);
      return t;
    });
    synchronized (this) {
      connect();
    }
    timer.scheduleWithFixedDelay(this::flushAcks, ACK_FLUSH_MS, ACK_FLUSH_MS, TimeUnit.MILLISECONDS);
  }

  private void flushAcks() {
    Stream current;
    synchronized (this) {
      current = stream;
    }
    current.flush();
  }

  /** One Subscribe stream; acks and nacks for another (lost) stream are dropped. */
  /**
   * One Subscribe stream; acks and nacks for another (lost) stream are dropped. Acks are batched:
   * sent when {@link #ACK_BATCH} tags are waiting or at the next flush tick, whichever is first.
   */
  final class Stream {
    private final BoundedSourceQueue<ConsumerFrame> frames;
    private AckFrame.Builder acks = AckFrame.newBuilder();

    Stream(BoundedSourceQueue<ConsumerFrame> frames) {
      this.frames = frames;
    }

    synchronized void ack(String tag) {
      acks.addDeliveryTags(tag);
      if (acks.getDeliveryTagsCount() >= ACK_BATCH) {
        flush();
      }
    }

    synchronized void flush() {
      if (acks.getDeliveryTagsCount() > 0) {
        frames.offer(ConsumerFrame.newBuilder().setAck(acks).build());
        acks = AckFrame.newBuilder();
      }
    }

    synchronized void nack(String tag, Duration delay) {
      flush();
      frames.offer(ConsumerFrame.newBuilder().setNack(NackFrame.newBuilder().setDeliveryTag(tag)
          .setRequeueDelayMs(delay.toMillis())).build());
    }
  }

  /** Completes when the subscription ends for good: closed, or refused by the broker. */
  public CompletableFuture<Void> terminated() {
    return terminated;
  }

  private void connect() {
    grpc = ConsumerClient.create(client.nextConnection(), client.system());
    Pair<BoundedSourceQueue<ConsumerFrame>, Source<ConsumerFrame, org.apache.pekko.NotUsed>> pair =
        Source.<ConsumerFrame>queue(Math.max(1024, options.maxInFlight() * 4)).preMaterialize(client.system());
    Stream current = new Stream(pair.first());
    stream = current;
    current.frames.offer(ConsumerFrame.newBuilder().setInit(SubscribeInit.newBuilder().setTopic(topic)
        .setGroup(group).setMaxInFlight(options.maxInFlight())).build());
    grpc.subscribe(pair.second())
        .runWith(Sink.foreach(d -> onDelivery(current, d, System.currentTimeMillis())), client.system())
        .whenComplete((done, failure) -> onStreamEnded(current, failure));
  }

  private void onDelivery(Stream from, Delivery delivery, long receivedAtMs) {
    synchronized (this) {
      failures = 0;
    }
    ReceivedMessage message = new ReceivedMessage(delivery, receivedAtMs, from);
    worker.execute(() -> {
      try {
        handler.handle(message);
        if (options.autoAck()) {
          message.ack();
        }
      } catch (Exception e) {
        LOG.warn("handler failed on message {} of topic {}; nacking it", delivery.getMessageId(), topic, e);
        if (options.autoAck()) {
          message.nack(options.nackDelay());
        }
      }
    });
  }

  private synchronized void onStreamEnded(Stream ended, Throwable failure) {
    if (ended != stream || closed) {
      return;
    }
    FutureQException error = failure == null ? null : FutureQException.from(failure);
    if (error != null && !error.retriable()) {
      LOG.error("subscription to topic {} group '{}' refused: {}", topic, group, error.getMessage());
      terminated.completeExceptionally(error);
      return;
    }
    grpc.close();
    long backoff = Math.min(5000, options.reconnectBackoff().toMillis() << Math.min(failures++, 6));
    timer.schedule(() -> {
      synchronized (this) {
        if (!closed && stream == ended) {
          connect();
        }
      }
    }, backoff, TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      stream.flush();
      stream.frames.complete();
      grpc.close();
    }
    worker.shutdown();
    try {
      worker.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    timer.shutdownNow();
    terminated.complete(null);
  }
}
