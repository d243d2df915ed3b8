package io.futureq.client;

import io.futureq.api.grpc.PublishRequest;
import io.futureq.api.grpc.PublishResponse;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.Status;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes messages in batches over one pipelined {@code PublishStream}. Batches go out when full
 * (count or bytes) or after the linger time. A batch holds messages of topics of one shard of the broker's event
 * log (a request must), as the client's discovery learnt the shard count; until a broker said, one topic's. At most {@code maxOutstandingMessages} may await their
 * ack: further sends block, then fail with RESOURCE_EXHAUSTED. When the connection is lost the
 * producer reconnects (to the next target, if several) and resends every unacknowledged batch;
 * give messages a key to make that resend idempotent. A send not acknowledged within the delivery
 * timeout fails with DEADLINE_EXCEEDED; the broker may still have stored it.
 */
public final class FutureQProducer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FutureQProducer.class);

  /** One publish request awaiting its response; resent as is after a reconnect. Message i's send is results[i]. */
  private record Request(PublishRequest proto, List<CompletableFuture<SendResult>> results,
      ScheduledFuture<?> expiry) {}

  /** One next request, its messages added as they are sent: no per-message holder, no second pass at flush. */
  private static final class Batch {
    final PublishRequest.Builder request = PublishRequest.newBuilder();
    final List<CompletableFuture<SendResult>> results = new ArrayList<>();
    /** When its first (oldest) message was sent: the whole request expires at that one's deadline. */
    final long startNanos = System.nanoTime();
    int bytes;
  }

  private final FutureQClient client;
  private final ProducerOptions options;
  private final Semaphore permits;
  private final ScheduledExecutorService timer;
  private final Map<String, Request> inFlight = new LinkedHashMap<>();
  /** The next requests, by {@link #batchKey}, in the order their first messages came. */
  private final Map<String, Batch> batches = new LinkedHashMap<>();
  private ScheduledFuture<?> linger;
  private long nextRequestId;
  private int generation;
  private int failures;
  /** What went wrong last (a lost stream, a retriable refusal), to say why a send timed out. */
  private FutureQException lastFailure;
  /** The current stream; null between a lost stream and the reconnect. */
  private ClientCall<PublishRequest, PublishResponse> call;
  private boolean closed;

  FutureQProducer(FutureQClient client, ProducerOptions options) {
    this.client = client;
    this.options = options;
    this.timer = client.timer();
    this.permits = new Semaphore(options.maxOutstandingMessages());
    synchronized (this) {
      connect();
    }
  }

  /**
   * Queues a message; the future completes once the broker has it durably (with its id, and whether
   * its key made it a duplicate), or fails with a {@link FutureQException}: the broker's refusal,
   * DEADLINE_EXCEEDED after the delivery timeout, CANCELLED when the producer closed first.
   */
  public CompletableFuture<SendResult> send(OutgoingMessage message) {
    CompletableFuture<SendResult> result = new CompletableFuture<>();
    try {
      if (!permits.tryAcquire(options.blockTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
        result.completeExceptionally(FutureQException.of(Status.Code.RESOURCE_EXHAUSTED, "producer has "
            + options.maxOutstandingMessages() + " unacknowledged messages (maxOutstandingMessages)"));
        return result;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      result.completeExceptionally(e);
      return result;
    }
    synchronized (this) {
      if (closed) {
        permits.release();
        result.completeExceptionally(FutureQException.of(Status.Code.CANCELLED, "producer is closed"));
        return result;
      }
      String key = batchKey(message.topic());
      Batch batch = batches.computeIfAbsent(key, k -> new Batch());
      batch.request.addMessages(message.toProto());
      batch.results.add(result);
      batch.bytes += message.sizeBytes();
      if (batch.results.size() >= options.batchMessages() || batch.bytes >= options.batchBytes()) {
        batches.remove(key);
        send(batch);
        if (batches.isEmpty() && linger != null) {
          linger.cancel(false);
          linger = null;
        }
      } else if (linger == null) {
        linger = timer.schedule(this::flush, options.linger().toMillis(), TimeUnit.MILLISECONDS);
      }
    }
    return result;
  }

  /**
   * Which batch a message of {@code topic} joins: one batch while the log has one shard, one per shard with several,
   * one per topic while the count is unknown (any broker takes a request of one topic).
   */
  private String batchKey(String topic) {
    int shards = client.logShards();
    return shards == 1 ? "" : shards == 0 ? "topic " + topic : "shard " + LogShard.of(topic, shards);
  }

  /** Sends the current batches now. */
  public synchronized void flush() {
    flushLocked();
  }

  /** Cancels the pending message with {@code key}; completes with whether it existed. */
  public CompletableFuture<Boolean> cancel(String topic, String key) {
    return client.cancelByKey(topic, key).thenApply(r -> r.getExisted());
  }

  /** Messages sent but not yet acknowledged by the broker. */
  public int outstanding() {
    return options.maxOutstandingMessages() - permits.availablePermits();
  }

  private void flushLocked() {
    if (linger != null) {
      linger.cancel(false);
      linger = null;
    }
    List<Batch> all = new ArrayList<>(batches.values());
    batches.clear();
    all.forEach(this::send);
  }

  private void send(Batch batch) {
    String id = Long.toString(nextRequestId++);
    PublishRequest proto = batch.request.setRequestId(id).setAckLevel(options.ackLevel()).build();
    long waitNanos = options.deliveryTimeout().toNanos() - (System.nanoTime() - batch.startNanos);
    ScheduledFuture<?> expiry = timer.schedule(() -> expire(id), Math.max(0, waitNanos), TimeUnit.NANOSECONDS);
    Request sent = new Request(proto, batch.results, expiry);
    inFlight.put(id, sent);
    if (call != null) {
      call.sendMessage(sent.proto());
    }
  }

  private void connect() {
    int gen = ++generation;
    // The first stream goes to a target the application named; reconnects may go to any member.
    io.grpc.ManagedChannel channel = gen == 1 ? client.seedChannel() : client.nextChannel();
    LOG.debug("publish stream {} to {}, resending {} requests", gen, channel.authority(), inFlight.size());
    ClientCall<PublishRequest, PublishResponse> next = channel.newCall(Rpc.PUBLISH_STREAM, CallOptions.DEFAULT);
    call = next;
    next.start(new ClientCall.Listener<>() {
      @Override
      public void onMessage(PublishResponse response) {
        onResponse(response);
      }

      @Override
      public void onClose(Status status, Metadata trailers) {
        onStreamEnded(gen, status.isOk() ? null : FutureQException.from(status));
      }
    }, new Metadata());
    // Responses are bounded by the requests sent, which maxOutstandingMessages bounds.
    next.request(Integer.MAX_VALUE);
    inFlight.values().forEach(r -> next.sendMessage(r.proto()));
  }

  private synchronized void onResponse(PublishResponse response) {
    String id = response.getRequestId();
    Request request = inFlight.get(id);
    if (request == null) {
      return; // expired or closed meanwhile
    }
    failures = 0;
    if (response.hasError()) {
      FutureQException error = FutureQException.of(Status.fromCodeValue(response.getError().getCode()).getCode(),
          response.getError().getMessage());
      if (error.retriable() && !closed) {
        lastFailure = error;
        LOG.debug("publish request {} refused for now, resending: {}", id, error.getMessage());
        timer.schedule(() -> resend(id), options.reconnectBackoff().toMillis(), TimeUnit.MILLISECONDS);
        return;
      }
      finish(id, i -> {
        request.results().get(i).completeExceptionally(error);
      });
    } else {
      finish(id, i -> request.results().get(i).complete(new SendResult(
          i < response.getMessageIdsCount() ? response.getMessageIds(i) : "",
          i < response.getDuplicateCount() && response.getDuplicate(i))));
    }
  }

  private synchronized void resend(String requestId) {
    Request request = inFlight.get(requestId);
    if (request != null && call != null) {
      call.sendMessage(request.proto());
    }
  }

  private synchronized void expire(String requestId) {
    Request request = inFlight.get(requestId);
    if (request == null) {
      return;
    }
    String why = lastFailure != null ? "last error: " + lastFailure.getMessage() : "the broker did not answer";
    FutureQException timeout = FutureQException.of(Status.Code.DEADLINE_EXCEEDED, "not acknowledged within the "
        + "delivery timeout of " + options.deliveryTimeout().toMillis() + " ms (ProducerOptions.deliveryTimeout); "
        + why + ". The broker may still store it: a key makes sending it again safe");
    finish(requestId, i -> request.results().get(i).completeExceptionally(timeout));
  }

  /**
   * Removes a request, gives its messages' permits back, then completes each: whoever a completion
   * wakes finds them no longer outstanding.
   */
  private void finish(String requestId, java.util.function.IntConsumer complete) {
    Request request = inFlight.remove(requestId);
    request.expiry().cancel(false);
    permits.release(request.results().size());
    notifyAll();
    for (int i = 0; i < request.results().size(); i++) {
      complete.accept(i);
    }
  }

  private synchronized void onStreamEnded(int gen, FutureQException failure) {
    if (gen != generation || closed) {
      return;
    }
    if (failure != null) {
      lastFailure = failure;
      if (failure.code() == Status.Code.UNAUTHENTICATED || failure.code() == Status.Code.PERMISSION_DENIED) {
        // The broker refused the stream itself (a bad or expired token): resending would be refused the same
        // way, so what waits fails now instead of at its delivery timeout. Later sends reconnect, asking a
        // token supplier again.
        for (String id : new java.util.ArrayList<>(inFlight.keySet())) {
          Request request = inFlight.get(id);
          finish(id, i -> request.results().get(i).completeExceptionally(failure));
        }
      }
    }
    call = null;
    long backoff = Math.min(5000, options.reconnectBackoff().toMillis() << Math.min(failures++, 6));
    LOG.debug("publish stream {} ended ({}); reconnecting in {} ms", gen, failure == null ? "OK" : failure.getMessage(),
        backoff);
    timer.schedule(() -> {
      synchronized (this) {
        if (gen == generation && !closed) {
          connect();
        }
      }
    }, backoff, TimeUnit.MILLISECONDS);
  }

  /** Like {@link #close(Duration)} with {@link ProducerOptions#closeTimeout()}. */
  @Override
  public void close() {
    close(options.closeTimeout());
  }

  /**
   * Sends what is batched and waits up to {@code timeout} for outstanding acknowledgements; sends
   * still unacknowledged then fail with CANCELLED (the broker may still store them). Then disconnects
   * and lets go of the producer. Closing again does nothing.
   */
  public void close(Duration timeout) {
    synchronized (this) {
      if (closed) {
        return;
      }
      flushLocked();
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!inFlight.isEmpty() && deadline - System.nanoTime() > 0) {
        try {
          TimeUnit.NANOSECONDS.timedWait(this, deadline - System.nanoTime());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
      boolean unacknowledged = !inFlight.isEmpty();
      closed = true;
      generation++;
      FutureQException cancelled = FutureQException.of(Status.Code.CANCELLED, "producer closed before the broker "
          + "acknowledged (waited " + timeout.toMillis() + " ms); the broker may still store it");
      for (String id : new ArrayList<>(inFlight.keySet())) {
        Request request = inFlight.get(id);
        finish(id, i -> request.results().get(i).completeExceptionally(cancelled));
      }
      if (call != null) {
        call.halfClose();
        if (!unacknowledged) {
          // nothing left to answer: the broker ends the stream itself, without a cancelled-stream warning
        } else {
          call.cancel("producer closed", null);
        }
        call = null;
      }
    }
    client.forget(this);
  }
}
