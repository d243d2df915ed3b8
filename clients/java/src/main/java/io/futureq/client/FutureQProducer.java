package io.futureq.client;

import io.futureq.api.grpc.CancelRequest;
import io.futureq.api.grpc.PublishRequest;
import io.futureq.api.grpc.PublishResponse;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Publishes messages in batches over one pipelined {@code PublishStream}. Batches go out when full
 * (count or bytes) or after the linger time. At most {@code maxOutstandingMessages} may await their
 * ack: further sends block, then fail with RESOURCE_EXHAUSTED. When the connection is lost the
 * producer reconnects (to the next target, if several) and resends every unacknowledged batch;
 * give messages a key to make that resend idempotent.
 */
public final class FutureQProducer implements AutoCloseable {
  private record Pending(OutgoingMessage message, CompletableFuture<String> result) {}

  private final FutureQClient client;
  private final ProducerOptions options;
  private final Semaphore permits;
  private final ScheduledExecutorService timer;
  private final Map<String, List<Pending>> inFlight = new LinkedHashMap<>();
  private final Map<String, PublishRequest> requests = new LinkedHashMap<>();
  private List<Pending> batch = new ArrayList<>();
  private int batchBytes;
  private ScheduledFuture<?> linger;
  private long nextRequestId;
  private int generation;
  private int failures;
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

  /** Queues a message; the future completes with its message id once the broker has it durably. */
  public CompletableFuture<String> send(OutgoingMessage message) {
    CompletableFuture<String> result = new CompletableFuture<>();
    try {
      if (!permits.tryAcquire(options.blockTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
        result.completeExceptionally(new FutureQException(Status.Code.RESOURCE_EXHAUSTED, "producer has "
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
        result.completeExceptionally(new FutureQException(Status.Code.CANCELLED, "producer is closed"));
        return result;
      }
      batch.add(new Pending(message, result));
      batchBytes += message.sizeBytes();
      if (batch.size() >= options.batchMessages() || batchBytes >= options.batchBytes()) {
        flushLocked();
      } else if (linger == null) {
        linger = timer.schedule(this::flush, options.linger().toMillis(), TimeUnit.MILLISECONDS);
      }
    }
    return result;
  }

  /** Sends the current batch now. */
  public synchronized void flush() {
    flushLocked();
  }

  /** Cancels the pending message with {@code key}; completes with whether it existed. */
  public CompletableFuture<Boolean> cancel(String topic, String key) {
    return client.cancel(CancelRequest.newBuilder().setTopic(topic).setKey(key).build())
        .thenApply(r -> r.getExisted());
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
    if (batch.isEmpty()) {
      return;
    }
    String id = Long.toString(nextRequestId++);
    PublishRequest.Builder request = PublishRequest.newBuilder().setRequestId(id).setAckLevel(options.ackLevel());
    batch.forEach(p -> request.addMessages(p.message().toProto()));
    inFlight.put(id, batch);
    requests.put(id, request.build());
    batch = new ArrayList<>();
    batchBytes = 0;
    if (call != null) {
      call.sendMessage(requests.get(id));
    }
  }

  private void connect() {
    int gen = ++generation;
    ClientCall<PublishRequest, PublishResponse> next = client.nextChannel().newCall(Rpc.PUBLISH_STREAM,
        CallOptions.DEFAULT);
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
    requests.values().forEach(next::sendMessage);
  }

  private synchronized void onResponse(PublishResponse response) {
    List<Pending> items = inFlight.remove(response.getRequestId());
    PublishRequest request = requests.remove(response.getRequestId());
    if (items == null) {
      return;
    }
    failures = 0;
    if (response.hasError()) {
      FutureQException error = new FutureQException(Status.fromCodeValue(response.getError().getCode()).getCode(),
          response.getError().getMessage());
      if (error.retriable() && !closed) {
        inFlight.put(response.getRequestId(), items);
        requests.put(response.getRequestId(), request);
        timer.schedule(() -> resend(response.getRequestId()), options.reconnectBackoff().toMillis(),
            TimeUnit.MILLISECONDS);
        return;
      }
      items.forEach(p -> p.result().completeExceptionally(error));
    } else {
      for (int i = 0; i < items.size(); i++) {
        items.get(i).result().complete(i < response.getMessageIdsCount() ? response.getMessageIds(i) : "");
      }
    }
    permits.release(items.size());
    notifyAll();
  }

  private synchronized void resend(String requestId) {
    PublishRequest request = requests.get(requestId);
    if (request != null && call != null) {
      call.sendMessage(request);
    }
  }

  private synchronized void onStreamEnded(int gen, Throwable failure) {
    if (gen != generation || (closed && inFlight.isEmpty())) {
      return;
    }
    call = null;
    long backoff = Math.min(5000, options.reconnectBackoff().toMillis() << Math.min(failures++, 6));
    timer.schedule(() -> {
      synchronized (this) {
        if (gen == generation && !(closed && inFlight.isEmpty())) {
          connect();
        }
      }
    }, backoff, TimeUnit.MILLISECONDS);
  }

  /** Sends what is batched, waits up to the request timeout for outstanding acks, then disconnects. */
  @Override
  public void close() {
    synchronized (this) {
      flushLocked();
      long deadline = System.currentTimeMillis() + client.requestTimeout().toMillis();
      while (!inFlight.isEmpty() && System.currentTimeMillis() < deadline) {
        try {
          wait(Math.max(1, deadline - System.currentTimeMillis()));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
      closed = true;
      generation++;
      inFlight.values().forEach(items -> items.forEach(p -> p.result().completeExceptionally(
          new FutureQException(Status.Code.CANCELLED, "producer closed before the broker acknowledged"))));
      inFlight.clear();
      requests.clear();
      if (call != null) {
        call.halfClose();
        call.cancel("producer closed", null);
        call = null;
      }
    }
    client.forget(this);
  }
}
