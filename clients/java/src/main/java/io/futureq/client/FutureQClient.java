package io.futureq.client;

import io.futureq.api.grpc.AddRaftPeerRequest;
import io.futureq.api.grpc.CancelRequest;
import io.futureq.api.grpc.CancelResponse;
import io.futureq.api.grpc.ClusterInfo;
import io.futureq.api.grpc.GetClusterInfoRequest;
import io.futureq.api.grpc.GetTopicStatsRequest;
import io.futureq.api.grpc.ListTopicsRequest;
import io.futureq.api.grpc.ListTopicsResponse;
import io.futureq.api.grpc.RaftInfo;
import io.futureq.api.grpc.RemoveRaftPeerRequest;
import io.futureq.api.grpc.TopicStats;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Connects to one or more FutureQ brokers and hands out producers, consumers and admin calls.
 * Connections rotate through the targets when one becomes unavailable. Built on plain grpc-java (no
 * actor system): one channel per target. Plaintext for now; TLS will be an option of the builder.
 * Close it to release its threads.
 *
 * <pre>{@code
 * try (FutureQClient client = FutureQClient.builder().target("127.0.0.1:8443").build()) {
 *   FutureQProducer producer = client.producer(ProducerOptions.defaults());
 *   producer.send(OutgoingMessage.to("reminders").payload("hi").delay(Duration.ofSeconds(5)).build()).join();
 * }
 * }</pre>
 */
public final class FutureQClient implements AutoCloseable {
  /**
   * The largest response message accepted: a delivery frame is closed at 256 KiB of payloads, so
   * this leaves room for one delivery of the largest payload a broker may be configured to take.
   */
  static final int MAX_INBOUND_MESSAGE_BYTES = 64 << 20;

  private final List<String> targets;
  private final ManagedChannel[] channels;
  private final Duration requestTimeout;
  private final AtomicInteger nextTarget = new AtomicInteger();
  private final List<AutoCloseable> handles = new ArrayList<>();
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "futureq-client-timer");
    t.setDaemon(true);
    return t;
  });

  private FutureQClient(List<String> targets, Duration requestTimeout) {
    this.targets = List.copyOf(targets);
    this.channels = new ManagedChannel[targets.size()];
    this.requestTimeout = requestTimeout;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A producer publishing on its own pipelined stream. */
  public synchronized FutureQProducer producer(ProducerOptions options) {
    FutureQProducer producer = new FutureQProducer(this, options);
    handles.add(producer);
    return producer;
  }

  /** Subscribes {@code handler} to {@code topic}; {@code group} "" subscribes as a universal consumer. */
  public synchronized FutureQConsumer subscribe(String topic, String group, MessageHandler handler,
      ConsumerOptions options) {
    FutureQConsumer consumer = new FutureQConsumer(this, topic, group, handler, options);
    handles.add(consumer);
    return consumer;
  }

  public CompletableFuture<ListTopicsResponse> listTopics() {
    return Rpc.unary(nextChannel(), Rpc.LIST_TOPICS, ListTopicsRequest.getDefaultInstance(), requestTimeout);
  }

  public CompletableFuture<TopicStats> topicStats(String topic) {
    return Rpc.unary(nextChannel(), Rpc.TOPIC_STATS, GetTopicStatsRequest.newBuilder().setTopic(topic).build(),
        requestTimeout);
  }

  public CompletableFuture<ClusterInfo> clusterInfo() {
    return Rpc.unary(nextChannel(), Rpc.CLUSTER_INFO, GetClusterInfoRequest.getDefaultInstance(), requestTimeout);
  }

  /**
   * Removes the pending message with {@code key} from {@code topic}, without opening a publish stream.
   * The response says whether it existed and, if so, its message id. Fails with a {@link FutureQException},
   * also when no answer comes within the request timeout.
   */
  public CompletableFuture<CancelResponse> cancelByKey(String topic, String key) {
    return cancel(CancelRequest.newBuilder().setTopic(topic).setKey(key).build());
  }

  /** Like {@link #cancelByKey}, naming the message by the id its publish returned. */
  public CompletableFuture<CancelResponse> cancelById(String topic, String messageId) {
    return cancel(CancelRequest.newBuilder().setTopic(topic).setMessageId(messageId).build());
  }

  CompletableFuture<CancelResponse> cancel(CancelRequest request) {
    return Rpc.unary(nextChannel(), Rpc.CANCEL, request, requestTimeout);
  }

  /** Clustered mode: adds a node to the Raft group (a listener first, then a voter). */
  public CompletableFuture<RaftInfo> addRaftPeer(String nodeId, String raftAddress) {
    return Rpc.unary(nextChannel(), Rpc.ADD_RAFT_PEER, AddRaftPeerRequest.newBuilder().setNodeId(nodeId)
        .setRaftAddress(raftAddress).build(), requestTimeout);
  }

  /** Clustered mode: removes a node from the Raft group. */
  public CompletableFuture<RaftInfo> removeRaftPeer(String nodeId) {
    return Rpc.unary(nextChannel(), Rpc.REMOVE_RAFT_PEER, RemoveRaftPeerRequest.newBuilder().setNodeId(nodeId)
        .build(), requestTimeout);
  }

  Duration requestTimeout() {
    return requestTimeout;
  }

  ScheduledExecutorService timer() {
    return timer;
  }

  /** The connection to the next target in rotation (one channel per target, opened on first use). */
  synchronized ManagedChannel nextChannel() {
    int i = Math.floorMod(nextTarget.getAndIncrement(), targets.size());
    if (channels[i] == null) {
      channels[i] = Grpc.newChannelBuilder(targets.get(i), InsecureChannelCredentials.create())
          .maxInboundMessageSize(MAX_INBOUND_MESSAGE_BYTES).build();
    }
    return channels[i];
  }

  synchronized void forget(AutoCloseable handle) {
    handles.remove(handle);
  }

  @Override
  public void close() {
    List<AutoCloseable> open;
    synchronized (this) {
      open = new ArrayList<>(handles);
    }
    for (AutoCloseable handle : open) {
      try {
        handle.close();
      } catch (Exception e) {
        // closing the rest matters more than one handle's failure to close
      }
    }
    synchronized (this) {
      // Streams just half-closed get a moment to end cleanly (their last acks are on the way).
      for (ManagedChannel channel : channels) {
        if (channel != null) {
          channel.shutdown();
        }
      }
      for (ManagedChannel channel : channels) {
        try {
          if (channel != null && !channel.awaitTermination(2, TimeUnit.SECONDS)) {
            channel.shutdownNow();
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          channel.shutdownNow();
        }
      }
    }
    timer.shutdownNow();
  }

  /** Configures a {@link FutureQClient}. */
  public static final class Builder {
    private final List<String> targets = new ArrayList<>();
    private Duration requestTimeout = Duration.ofSeconds(30);

    /** Adds a broker as {@code host:port}; give several to fail over between them. */
    public Builder target(String hostPort) {
      Objects.requireNonNull(hostPort, "hostPort");
      int colon = hostPort.lastIndexOf(':');
      if (colon <= 0 || colon == hostPort.length() - 1) {
        throw new IllegalArgumentException("target must be HOST:PORT, got '" + hostPort + "'");
      }
      int port = Integer.parseInt(hostPort.substring(colon + 1));
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException("target port must be 1-65535, got " + port);
      }
      targets.add(hostPort);
      return this;
    }

    public Builder requestTimeout(Duration timeout) {
      this.requestTimeout = Objects.requireNonNull(timeout, "timeout");
      return this;
    }

    public FutureQClient build() {
      if (targets.isEmpty()) {
        throw new IllegalStateException("at least one target (HOST:PORT) is required");
      }
      return new FutureQClient(targets, requestTimeout);
    }
  }
}
