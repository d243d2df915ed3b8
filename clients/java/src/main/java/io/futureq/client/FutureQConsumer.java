package io.futureq.client;

import io.grpc.Status;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A subscription: runs the handler for each delivery on its handler threads ({@link
 * ConsumerOptions#handlerThreads()}; with one, in arrival order), acks (auto-ack) or leaves acking to
 * the handler, and resubscribes with backoff when the stream is lost. Deliveries unacked when a
 * stream is lost are redelivered by the broker.
 */
public final class FutureQConsumer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FutureQConsumer.class);
  private static final AtomicInteger THREADS = new AtomicInteger();

  private final FutureQClient client;
  private final String topic;
  private final String group;
  private final MessageHandler handler;
  private final ConsumerOptions options;
  private final ExecutorService handlers;
  private final CompletableFuture<Void> subscribed = new CompletableFuture<>();
  private final CompletableFuture<Void> terminated = new CompletableFuture<>();
  private final SubscribeStream.Events events = new SubscribeStream.Events() {
    @Override
    public void subscribed(SubscribeStream stream) {
      onSubscribed();
    }

    @Override
    public void delivered(SubscribeStream stream, List<ReceivedMessage> messages) {
      dispatch(stream, messages);
    }

    @Override
    public void ended(SubscribeStream stream, Status status) {
      onStreamEnded(stream, status);
    }
  };
  private SubscribeStream stream;
  private int failures;
  private boolean closed;

  FutureQConsumer(FutureQClient client, String topic, String group, MessageHandler handler, ConsumerOptions options) {
    this.client = client;
    this.topic = topic;
    this.group = group;
    this.handler = handler;
    this.options = options;
    this.handlers = Executors.newFixedThreadPool(options.handlerThreads(), r -> {
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

  private void connect() {
    stream = new SubscribeStream(client.nextChannel(), topic, group, events, client.timer());
    stream.start(options.maxInFlight());
  }

  private synchronized void onSubscribed() {
    failures = 0;
    subscribed.complete(null);
  }

  /** One task per handler thread and frame: a frame is split into contiguous shares. */
  private void dispatch(SubscribeStream from, List<ReceivedMessage> messages) {
    int shares = Math.min(options.handlerThreads(), messages.size());
    for (int s = 0; s < shares; s++) {
      List<ReceivedMessage> share = messages.subList(s * messages.size() / shares, (s + 1) * messages.size() / shares);
      try {
        handlers.execute(() -> handle(from, share));
      } catch (java.util.concurrent.RejectedExecutionException e) {
        return; // closed: the broker redelivers what was not handled
      }
    }
  }

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
    if (options.autoAck()) {
      from.flush();
    }
  }

  private synchronized void onStreamEnded(SubscribeStream ended, Status status) {
    if (ended != stream || closed) {
      return;
    }
    FutureQException error = status.isOk() ? null : FutureQException.from(status);
    if (error != null && !error.retriable()) {
      LOG.error("subscription to topic {} group '{}' refused: {}", topic, group, error.getMessage());
      subscribed.completeExceptionally(error);
      terminated.completeExceptionally(error);
      handlers.shutdown();
      client.forget(this);
      return;
    }
    long backoff = Math.min(5000, options.reconnectBackoff().toMillis() << Math.min(failures++, 6));
    client.timer().schedule(() -> {
      synchronized (this) {
        if (!closed && stream == ended) {
          connect();
        }
      }
    }, backoff, TimeUnit.MILLISECONDS);
  }

  /** Stops receiving, lets running handlers finish (up to 5 s), sends their acks and ends the stream. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    handlers.shutdown();
    try {
      handlers.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    handlers.shutdownNow();
    synchronized (this) {
      stream.close();
    }
    client.forget(this);
    terminated.complete(null);
  }
}
