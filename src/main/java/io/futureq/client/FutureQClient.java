package io.futureq.client;

import com.typesafe.config.ConfigFactory;
import io.futureq.api.grpc.AddRaftPeerRequest;
import io.futureq.api.grpc.AdminClient;
import io.futureq.api.grpc.RaftInfo;
import io.futureq.api.grpc.RemoveRaftPeerRequest;
import io.futureq.api.grpc.CancelRequest;
import io.futureq.api.grpc.CancelResponse;
import io.futureq.api.grpc.ClusterInfo;
import io.futureq.api.grpc.GetClusterInfoRequest;
import io.futureq.api.grpc.GetTopicStatsRequest;
import io.futureq.api.grpc.ListTopicsRequest;
import io.futureq.api.grpc.ListTopicsResponse;
import io.futureq.api.grpc.ProducerClient;
import io.futureq.api.grpc.TopicStats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.grpc.GrpcClientSettings;

/**
 * Connects to one or more FutureQ brokers and hands out producers, consumers and admin calls.
 * Connections rotate through the targets when one becomes unavailable. Plaintext for now; TLS will
 * be an option of the builder. Close it to release its threads.
 *
 * <pre>{@code
 * try (FutureQClient client = FutureQClient.builder().target("127.0.0.1:8443").build()) {
 *   FutureQProducer producer = client.producer(ProducerOptions.defaults());
 *   producer.send(OutgoingMessage.to("reminders").payload("hi").delay(Duration.ofSeconds(5)).build()).join();
 * }
 * }</pre>
 */
public final class FutureQClient implements AutoCloseable {
  private final List<String> targets;
  private final ActorSystem<Void> system;
  private final Duration requestTimeout;
  private final AtomicInteger nextTarget = new AtomicInteger();
  private final List<AutoCloseable> handles = new ArrayList<>();
  private AdminClient admin;
  private ProducerClient unary;

  private FutureQClient(List<String> targets, Duration requestTimeout) {
    this.targets = List.copyOf(targets);
    this.requestTimeout = requestTimeout;
    this.system = ActorSystem.create(Behaviors.empty(), "futureq-client", ConfigFactory.parseString(
        "pekko.actor.provider = local\npekko.loglevel = WARNING\npekko.coordinated-shutdown.exit-jvm = off\n"
            + "pekko.coordinated-shutdown.run-by-jvm-shutdown-hook = off\n"
            + "pekko.http.client.http2.max-persistent-attempts = 0\n").withFallback(ConfigFactory.load()));
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
    return translate(admin().listTopics(ListTopicsRequest.getDefaultInstance()).toCompletableFuture());
  }

  public CompletableFuture<TopicStats> topicStats(String topic) {
    return translate(admin().getTopicStats(GetTopicStatsRequest.newBuilder().setTopic(topic).build())
        .toCompletableFuture());
  }

  public CompletableFuture<ClusterInfo> clusterInfo() {
    return translate(admin().getClusterInfo(GetClusterInfoRequest.getDefaultInstance()).toCompletableFuture());
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

  private CompletableFuture<CancelResponse> cancel(CancelRequest request) {
    ProducerClient stub;
    synchronized (this) {
      if (unary == null) {
        unary = ProducerClient.create(nextConnection(), system);
      }
      stub = unary;
    }
    return translate(stub.cancel(request).toCompletableFuture()
        .orTimeout(requestTimeout.toMillis(), TimeUnit.MILLISECONDS));
  }

  /** Clustered mode: adds a node to the Raft group (a listener first, then a voter). */
  public CompletableFuture<RaftInfo> addRaftPeer(String nodeId, String raftAddress) {
    return translate(admin().addRaftPeer(AddRaftPeerRequest.newBuilder().setNodeId(nodeId)
        .setRaftAddress(raftAddress).build()).toCompletableFuture());
  }

  /** Clustered mode: removes a node from the Raft group. */
  public CompletableFuture<RaftInfo> removeRaftPeer(String nodeId) {
    return translate(admin().removeRaftPeer(RemoveRaftPeerRequest.newBuilder().setNodeId(nodeId).build())
        .toCompletableFuture());
  }

  private synchronized AdminClient admin() {
    if (admin == null) {
      admin = AdminClient.create(nextConnection(), system);
    }
    return admin;
  }

  ActorSystem<Void> system() {
    return system;
  }

  Duration requestTimeout() {
    return requestTimeout;
  }

  /** Settings for the next target in rotation. */
  GrpcClientSettings nextConnection() {
    String target = targets.get(Math.floorMod(nextTarget.getAndIncrement(), targets.size()));
    int colon = target.lastIndexOf(':');
    return GrpcClientSettings.connectToServiceAt(target.substring(0, colon),
        Integer.parseInt(target.substring(colon + 1)), system).withTls(false);
  }

  static <T> CompletableFuture<T> translate(CompletableFuture<T> future) {
    CompletableFuture<T> out = new CompletableFuture<>();
    future.whenComplete((v, e) -> {
      if (e == null) {
        out.complete(v);
      } else {
        out.completeExceptionally(FutureQException.from(e));
      }
    });
    return out;
  }

  @Override
  public synchronized void close() {
    for (AutoCloseable handle : handles) {
      try {
        handle.close();
      } catch (Exception e) {
        // closing the rest matters more than one handle's failure to close
      }
    }
    if (admin != null) {
      admin.close();
    }
    if (unary != null) {
      unary.close();
    }
    system.terminate();
    system.getWhenTerminated().toCompletableFuture().join();
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
