package io.futureq.client;

import io.grpc.Status;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A subscription, in one of two modes. Subscribed with a handler, it runs the handler for each
 * delivery on its handler threads ({@link ConsumerOptions#handlerThreads()}; with one, in arrival
 * order) and acks (auto-ack) or leaves acking to the handler. Subscribed without one, the application
 * pulls deliveries with {@link #receive(int, Duration)} and acks or nacks each. Either way it
 * resubscribes with backoff when the stream is lost; deliveries unacked when a stream is lost are
 * redelivered by the broker.
 */
public final class FutureQConsumer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FutureQConsumer.class);
  private static final AtomicInteger THREADS = new AtomicInteger();

  private final FutureQClient client;
  private final String topic;
  private final String group;
  /** Null in pull mode. */
  private final MessageHandler handler;
  private final ConsumerOptions options;
  /** Null in pull mode. */
  private final ExecutorService handlers;
  /** Pull mode: deliveries waiting for {@link #receive}; the broker's credit bounds them. */
  private final ArrayDeque<ReceivedMessage> received = new ArrayDeque<>();
  private final CompletableFuture<Void> subscribed = new CompletableFuture<>();
  private final CompletableFuture<Void> terminated = new CompletableFuture<>();
  private final SubscribeStream.Events events = new SubscribeStream.Events() {
    @Override
    public void subscribed(SubscribeStream stream) {
      onSubscribed();
    }

    @Override
    public void delivered(SubscribeStream stream, List<ReceivedMessage> messages) {
      if (handler == null) {
        buffer(messages);
      } else {
        dispatch(stream, messages);
      }
    }

    @Override
    public void ended(SubscribeStream stream, Status status) {
      onStreamEnded(stream, status);
    }
  };
  private SubscribeStream stream;
  private int failures;
  private volatile boolean closed;

  FutureQConsumer(FutureQClient client, String topic, String group, MessageHandler handler, ConsumerOptions options) {
    this.client = client;
    this.topic = topic;
    this.group = group;
    this.handler = handler;
    this.options = options;
    this.handlers = handler == null ? null : Executors.newFixedThreadPool(options.handlerThreads(), r -> {
      Thread t = new Thread(r, "futureq-consumer-" + topic + "-" + THREADS.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    synchronized (this) {
      connect();
    }
  }

  /** Completes once the broker has taken the first subscription: deliveries may follow. */
  public CompletableFuture<Void> subscribed() {
    return subscribed;
  }

  /** Completes when the subscription ends for good: closed, or refused by the broker. */
  public CompletableFuture<Void> terminated() {
    return terminated;
  }

  /**
   * Pull mode: waits up to {@code timeout} for a delivery, then returns the deliveries already here,
   * at most {@code max}, oldest first (an empty list if none came). They are not acked: ack or nack
   * each; one left alone is delivered again after the broker's in-flight timeout, and keeps its share
   * of {@link ConsumerOptions#maxInFlight()} until then. Deliveries of a lost stream are dropped (the
   * broker redelivers them). A receive waiting when the consumer closes returns an empty list.
   *
   * @throws IllegalStateException if the consumer has a handler, or is closed
   * @throws FutureQException if the broker refused the subscription
   */
  public List<ReceivedMessage> receive(int max, Duration timeout) throws InterruptedException {
    if (handler != null) {
      throw new IllegalStateException("this consumer has a handler; receive() is for consumers subscribed without one");
    }
    if (max < 1) {
      throw new IllegalArgumentException("max must be >= 1, got " + max);
    }
    if (closed) {
      throw new IllegalStateException("consumer of topic " + topic + " group '" + group + "' is closed");
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (received) {
      while (received.isEmpty() && !closed && !terminated.isDone() && deadline - System.nanoTime() > 0) {
        TimeUnit.NANOSECONDS.timedWait(received, deadline - System.nanoTime());
      }
      if (terminated.isCompletedExceptionally() && received.isEmpty()) {
        throw FutureQException.from(terminated.handle((v, e) -> e).join());
      }
      List<ReceivedMessage> out = new ArrayList<>(Math.min(max, received.size()));
      while (out.size() < max && !received.isEmpty()) {
        out.add(received.poll());
      }
      return out;
    }
  }

  private void connect() {
    // The first stream goes to a target the application named; resubscribes may go to any member.
    stream = new SubscribeStream(stream == null ? client.seedChannel() : client.nextChannel(), topic, group, events,
        client.timer());
    stream.start(options.maxInFlight(), options.maxInFlightBytes());
  }

  private synchronized void onSubscribed() {
    failures = 0;
    subscribed.complete(null);
  }

  private void buffer(List<ReceivedMessage> messages) {
    synchronized (received) {
      received.addAll(messages);
      received.notifyAll();
    }
  }

  /** One task per handler thread and frame: a frame is split into contiguous shares. */
  private void dispatch(SubscribeStream from, List<ReceivedMessage> messages) {
    int shares = Math.min(options.handlerThreads(), messages.size());
    for (int s = 0; s < shares; s++) {
      List<ReceivedMessage> share = messages.subList(s * messages.size() / shares, (s + 1) * messages.size() / shares);
      try {
        handlers.execute(() -> handle(from, share));
      } catch (RejectedExecutionException e) {
        return; // closed: the broker redelivers what was not handled
      }
    }
  }

  /**
   * Runs the handler on a share of a frame. Its acks, automatic or the handler's own, go out as one frame at the
   * end of the share (or per quarter of the credit), not one frame per message nor after a linger.
   */
  private void handle(SubscribeStream from, List<ReceivedMessage> messages) {
    for (ReceivedMessage message : messages) {
      try {
        handler.handle(message);
        if (options.autoAck()) {
          from.ackLater(message.deliveryTag());
        }
      } catch (Exception e) {
        LOG.warn("handler failed on message {} of topic {}; nacking it", message.messageId(), topic, e);
        if (options.autoAck()) {
          message.nack(options.nackDelay());
        }
      }
    }
    from.flush();
  }

  private synchronized void onStreamEnded(SubscribeStream ended, Status status) {
    synchronized (received) {
      // Their tags belong to the lost stream, so their acks could not count: the broker redelivers them.
      received.removeIf(m -> m.stream() == ended);
    }
    if (ended != stream || closed) {
      return;
    }
    FutureQException error = status.isOk() ? null : FutureQException.from(status);
    if (error != null && !error.retriable()) {
      LOG.error("subscription to topic {} group '{}' refused: {}", topic, group, error.getMessage());
      subscribed.completeExceptionally(error);
      terminated.completeExceptionally(error);
      if (handlers != null) {
        handlers.shutdown();
      }
      synchronized (received) {
        received.notifyAll();
      }
      client.forget(this);
      return;
    }
    long backoff = reconnectDelayMs(options.reconnectBackoff(), failures++, ThreadLocalRandom.current().nextDouble());
    client.timer().schedule(() -> {
      synchronized (this) {
        if (!closed && stream == ended) {
          connect();
        }
      }
    }, backoff, TimeUnit.MILLISECONDS);
  }

  /**
   * The wait before resubscribing after {@code failures} failed attempts: the first backoff doubled per failure up to
   * 5 s, then between half of that and all of it ({@code random} in [0, 1)), so that the consumers of a broker that
   * restarts do not all come back in the same millisecond.
   */
  static long reconnectDelayMs(Duration first, int failures, double random) {
    long ceiling = Math.min(5000, first.toMillis() << Math.min(failures, 6));
    return ceiling / 2 + (long) (random * (ceiling - ceiling / 2));
  }

  /**
   * Stops receiving, lets running handlers finish (up to 5 s), sends their acks, ends the stream and
   * lets go of the consumer and its threads. Deliveries received but not acked are redelivered.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    synchronized (received) {
      received.notifyAll();
    }
    if (handlers != null) {
      handlers.shutdown();
      try {
        handlers.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      handlers.shutdownNow();
    }
    synchronized (this) {
      stream.close();
    }
    client.forget(this);
    terminated.complete(null);
  }
}
