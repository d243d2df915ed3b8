package io.futureq.client;

import io.futureq.api.grpc.AddRaftPeerRequest;
import io.futureq.api.grpc.CancelRequest;
import io.futureq.api.grpc.CancelResponse;
import io.futureq.api.grpc.ClusterInfo;
import io.futureq.api.grpc.DeleteGroupRequest;
import io.futureq.api.grpc.DeleteGroupResponse;
import io.futureq.api.grpc.DeleteTopicRequest;
import io.futureq.api.grpc.DeleteTopicResponse;
import io.futureq.api.grpc.GetClusterInfoRequest;
import io.futureq.api.grpc.GetMessageRequest;
import io.futureq.api.grpc.GetTopicStatsRequest;
import io.futureq.api.grpc.ListMessagesRequest;
import io.futureq.api.grpc.ListMessagesResponse;
import io.futureq.api.grpc.ListTopicsRequest;
import io.futureq.api.grpc.ListTopicsResponse;
import io.futureq.api.grpc.PendingMessage;
import io.futureq.api.grpc.PurgeTopicRequest;
import io.futureq.api.grpc.PurgeTopicResponse;
import io.futureq.api.grpc.RaftInfo;
import io.futureq.api.grpc.RemoveRaftPeerRequest;
import io.futureq.api.grpc.RescheduleMessageRequest;
import io.futureq.api.grpc.RescheduleMessageResponse;
import io.futureq.api.grpc.TopicStats;
import io.grpc.ChannelCredentials;
import io.grpc.ClientInterceptor;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.function.Supplier;

/**
 * Connects to one or more FutureQ brokers and hands out producers, consumers and admin calls. Given
 * one address of a cluster, it learns the other members from {@code Admin.GetClusterInfo} (at start,
 * every second until the answer names every member's address, then every
 * {@link Builder#discoveryInterval}) and fails over to them: a lost stream reconnects to the next
 * known broker, and a call that finds its broker unavailable is tried on the next. Built on plain
 * grpc-java (no actor system): one channel per broker, plaintext or TLS. Close it to release its
 * threads. Admin calls answer with the protobuf messages of {@code io.futureq.api.grpc} (see the package docs).
 *
 * <pre>{@code
 * try (FutureQClient client = FutureQClient.builder().target("127.0.0.1:8443").build()) {
 *   FutureQProducer producer = client.producer(ProducerOptions.defaults());
 *   producer.send(OutgoingMessage.to("reminders").payload("hi").delay(Duration.ofSeconds(5)).build()).join();
 * }
 * }</pre>
 */
public final class FutureQClient implements AutoCloseable {
  private final Brokers brokers;
  /** How long a membership change may take: moving a replica installs a snapshot of its whole shard. */
  public static final Duration MEMBERSHIP_TIMEOUT = Duration.ofMinutes(30);

  private final Duration requestTimeout;
  private final Set<AutoCloseable> handles = new LinkedHashSet<>();
  private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> {
    Thread t = new Thread(r, "futureq-client-timer");
    t.setDaemon(true);
    return t;
  });
  private boolean closed;

  private FutureQClient(Builder builder, ChannelCredentials credentials) {
    this.brokers = new Brokers(builder.targets, credentials,
        builder.token == null ? null : new BearerToken(builder.token), builder.interceptors);
    this.requestTimeout = builder.requestTimeout;
    // Each publish request cancels its delivery timeout (60 s out by default) when answered: gone from the queue at
    // once, it is not kept, and copied by every GC, until then.
    timer.setRemoveOnCancelPolicy(true);
    if (!builder.discoveryInterval.isZero()) {
      timer.execute(new Discovery(brokers, timer, builder.discoveryInterval, requestTimeout));
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The broker's event log shard count as discovery learnt it, or 0 while unknown (see {@link LogShard}). */
  int logShards() {
    return brokers.logShards();
  }

  /** A producer publishing on its own pipelined stream. Close it to let go of it. */
  public synchronized FutureQProducer producer(ProducerOptions options) {
    requireOpen();
    FutureQProducer producer = new FutureQProducer(this, options);
    handles.add(producer);
    return producer;
  }

  /**
   * Subscribes {@code handler} to {@code topic}; {@code group} "" subscribes as a universal consumer.
   * Close the consumer to let go of it.
   */
  public synchronized FutureQConsumer subscribe(String topic, String group, MessageHandler handler,
      ConsumerOptions options) {
    requireOpen();
    FutureQConsumer consumer = new FutureQConsumer(this, topic, group, Objects.requireNonNull(handler,
        "handler"), options);
    handles.add(consumer);
    return consumer;
  }

  /**
   * Subscribes without a handler: the application pulls deliveries with {@link FutureQConsumer#receive}
   * and acks or nacks each ({@link ConsumerOptions#autoAck()} and {@code handlerThreads} do not apply).
   */
  public synchronized FutureQConsumer subscribe(String topic, String group, ConsumerOptions options) {
    requireOpen();
    FutureQConsumer consumer = new FutureQConsumer(this, topic, group, null, options);
    handles.add(consumer);
    return consumer;
  }

  /** The brokers this client connects to: its targets, then the cluster members it learned of. */
  public List<String> targets() {
    return brokers.known();
  }

  public CompletableFuture<ListTopicsResponse> listTopics() {
    return unary(Rpc.LIST_TOPICS, ListTopicsRequest.getDefaultInstance());
  }

  public CompletableFuture<TopicStats> topicStats(String topic) {
    return unary(Rpc.TOPIC_STATS, GetTopicStatsRequest.newBuilder().setTopic(topic).build());
  }

  public CompletableFuture<ClusterInfo> clusterInfo() {
    return unary(Rpc.CLUSTER_INFO, GetClusterInfoRequest.getDefaultInstance());
  }

  /** A page of a topic's pending messages in due order (window, page size, token, payloads: see the request). */
  public CompletableFuture<ListMessagesResponse> listMessages(ListMessagesRequest request) {
    return unary(Rpc.LIST_MESSAGES, request);
  }

  /** The pending message with {@code key}; fails with NOT_FOUND when none is pending. */
  public CompletableFuture<PendingMessage> getMessageByKey(String topic, String key, boolean includePayload) {
    return unary(Rpc.GET_MESSAGE, GetMessageRequest.newBuilder().setTopic(topic).setKey(key)
        .setIncludePayload(includePayload).build());
  }

  public CompletableFuture<PendingMessage> getMessageById(String topic, String messageId, boolean includePayload) {
    return unary(Rpc.GET_MESSAGE, GetMessageRequest.newBuilder().setTopic(topic).setMessageId(messageId)
        .setIncludePayload(includePayload).build());
  }

  /**
   * Moves the pending message with {@code key} to {@code dueAt} (a time in the past: due now). The response names
   * its new id; NOT_FOUND when none is pending.
   */
  public CompletableFuture<RescheduleMessageResponse> rescheduleByKey(String topic, String key, Instant dueAt) {
    return reschedule(RescheduleMessageRequest.newBuilder().setTopic(topic).setKey(key)
        .setDeliverAtUnixMs(Math.max(0, dueAt.toEpochMilli())).build());
  }

  public CompletableFuture<RescheduleMessageResponse> rescheduleById(String topic, String messageId, Instant dueAt) {
    return reschedule(RescheduleMessageRequest.newBuilder().setTopic(topic).setMessageId(messageId)
        .setDeliverAtUnixMs(Math.max(0, dueAt.toEpochMilli())).build());
  }

  /** Any reschedule, e.g. with a delay, or with no due time at all: due now. */
  public CompletableFuture<RescheduleMessageResponse> reschedule(RescheduleMessageRequest request) {
    return unary(Rpc.RESCHEDULE_MESSAGE, request);
  }

  /** Unregisters a group: messages only it still held are deleted, its streams end with NOT_FOUND. */
  public CompletableFuture<DeleteGroupResponse> deleteGroup(String topic, String group) {
    return unary(Rpc.DELETE_GROUP, DeleteGroupRequest.newBuilder().setTopic(topic).setGroup(group).build());
  }

  /** Deletes every message pending on the topic when the purge starts; its groups stay. */
  public CompletableFuture<PurgeTopicResponse> purgeTopic(String topic) {
    return unary(Rpc.PURGE_TOPIC, PurgeTopicRequest.newBuilder().setTopic(topic).build());
  }

  /** Deletes the topic's messages and groups. */
  public CompletableFuture<DeleteTopicResponse> deleteTopic(String topic) {
    return unary(Rpc.DELETE_TOPIC, DeleteTopicRequest.newBuilder().setTopic(topic).build());
  }

  /**
   * Removes the pending message with {@code key} from {@code topic}, without opening a publish stream.
   * The response says whether it existed and, if so, its message id. Fails with a {@link FutureQException},
   * also when no answer comes within the request timeout.
   */
  public CompletableFuture<CancelResponse> cancelByKey(String topic, String key) {
    return unary(Rpc.CANCEL, CancelRequest.newBuilder().setTopic(topic).setKey(key).build());
  }

  /** Like {@link #cancelByKey}, naming the message by the id its publish returned. */
  public CompletableFuture<CancelResponse> cancelById(String topic, String messageId) {
    return unary(Rpc.CANCEL, CancelRequest.newBuilder().setTopic(topic).setMessageId(messageId).build());
  }

  /**
   * Clustered mode: adds a node to the Raft group of every log shard (a listener first, then a voter), or, where
   * each shard lives on fewer nodes than the cluster has, moves replicas to it. Waits up to
   * {@link #MEMBERSHIP_TIMEOUT}, not the request timeout: each replica moved installs a snapshot of its shard.
   * Completes with the groups afterwards: every log shard's, with its voters ({@code RaftInfo.getLogShardsList()}).
   */
  public CompletableFuture<RaftInfo> addRaftPeer(String nodeId, String raftAddress) {
    return unary(Rpc.ADD_RAFT_PEER, AddRaftPeerRequest.newBuilder().setNodeId(nodeId).setRaftAddress(raftAddress)
        .build(), MEMBERSHIP_TIMEOUT);
  }

  /** Clustered mode: removes a node from the Raft group (its replicas moved first, as above); as long a wait. */
  public CompletableFuture<RaftInfo> removeRaftPeer(String nodeId) {
    return unary(Rpc.REMOVE_RAFT_PEER, RemoveRaftPeerRequest.newBuilder().setNodeId(nodeId).build(),
        MEMBERSHIP_TIMEOUT);
  }

  /** A unary call on a given target; UNAVAILABLE moves it on to the next known broker, once per broker. */
  private <Q, R> CompletableFuture<R> unary(MethodDescriptor<Q, R> method, Q request) {
    return unary(method, request, requestTimeout);
  }

  private <Q, R> CompletableFuture<R> unary(MethodDescriptor<Q, R> method, Q request, Duration timeout) {
    return unary(brokers.seedChannel(), method, request, timeout, brokers.known().size());
  }

  private <Q, R> CompletableFuture<R> unary(ManagedChannel channel, MethodDescriptor<Q, R> method, Q request,
      Duration timeout, int triesLeft) {
    return Rpc.unary(channel, method, request, timeout).handle((response, failure) -> {
      if (failure == null) {
        return CompletableFuture.completedFuture(response);
      }
      FutureQException error = FutureQException.from(failure);
      if (error.code() == Status.Code.UNAVAILABLE && triesLeft > 1) {
        return unary(brokers.nextChannel(), method, request, timeout, triesLeft - 1);
      }
      return CompletableFuture.<R>failedFuture(error);
    }).thenCompose(f -> f);
  }

  Duration requestTimeout() {
    return requestTimeout;
  }

  ScheduledExecutorService timer() {
    return timer;
  }

  /** Producers and consumers not yet closed. */
  synchronized int openHandles() {
    return handles.size();
  }

  ManagedChannel seedChannel() {
    return brokers.seedChannel();
  }

  ManagedChannel nextChannel() {
    return brokers.nextChannel();
  }

  private void requireOpen() {
    if (closed) {
      throw new IllegalStateException("the client is closed");
    }
  }

  synchronized void forget(AutoCloseable handle) {
    handles.remove(handle);
  }

  @Override
  public void close() {
    List<AutoCloseable> open;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      open = new ArrayList<>(handles);
    }
    for (AutoCloseable handle : open) {
      try {
        handle.close();
      } catch (Exception e) {
        // closing the rest matters more than one handle's failure to close
      }
    }
    timer.shutdownNow();
    brokers.close();
  }

  /** Configures a {@link FutureQClient}. */
  public static final class Builder {
    private final List<String> targets = new ArrayList<>();
    private Duration requestTimeout = Duration.ofSeconds(30);
    private Duration discoveryInterval = Duration.ofSeconds(30);
    private Supplier<String> token;
    private ClientTls tls = ClientTls.PLAINTEXT;
    private final List<ClientInterceptor> interceptors = new ArrayList<>();

    /** Adds a broker as {@code host:port}; one member of a cluster is enough, several guard the start. */
    public Builder target(String hostPort) {
      Objects.requireNonNull(hostPort, "hostPort");
      try {
        HostPort.parse(hostPort);
      } catch (HostPort.InvalidException e) {
        throw new IllegalArgumentException(switch (e.problem()) {
          case NOT_HOST_PORT -> "target must be HOST:PORT, got '" + hostPort + "'";
          case PORT_NOT_A_NUMBER -> "target port must be a number, got '" + hostPort + "'";
          case PORT_OUT_OF_RANGE -> "target port must be 1-65535, got " + hostPort.substring(hostPort.lastIndexOf(':')
              + 1);
        });
      }
      targets.add(hostPort);
      return this;
    }

    /** Longest a unary call (admin, cancel) may take; default 30 s. */
    public Builder requestTimeout(Duration timeout) {
      this.requestTimeout = Objects.requireNonNull(timeout, "timeout");
      return this;
    }

    /**
     * How often the client asks a broker for the cluster's members (default 30 s; the first time at
     * once). {@code Duration.ZERO} turns discovery off: the client uses its targets only.
     */
    public Builder discoveryInterval(Duration interval) {
      Objects.requireNonNull(interval, "interval");
      if (interval.isNegative()) {
        throw new IllegalArgumentException("discoveryInterval must not be negative, got " + interval);
      }
      this.discoveryInterval = interval;
      return this;
    }

    /**
     * Sends {@code token} as {@code authorization: Bearer TOKEN} on every call: a static token of the broker's
     * access file, or a JWT. A broker with authentication off ignores it.
     */
    public Builder token(String token) {
      Objects.requireNonNull(token, "token");
      if (token.isBlank()) {
        throw new IllegalArgumentException("token must not be empty");
      }
      return token(() -> token);
    }

    /**
     * As {@link #token(String)}, asking {@code token} on every call and stream start, e.g. for a JWT refreshed
     * before it expires. It must not block long: calls wait for it.
     */
    public Builder token(Supplier<String> token) {
      this.token = Objects.requireNonNull(token, "token");
      return this;
    }

    /**
     * Connects with TLS, trusting the JVM's default CAs (unless {@link #trustedCertificates} names others). The
     * broker's certificate must name the address dialled (DNS or IP subject alternative name).
     */
    public Builder tls() {
      tls = new ClientTls(true, tls.caFile(), tls.certFile(), tls.keyFile());
      return this;
    }

    /** Connects with TLS, trusting only the CA certificate(s) in this PEM file. */
    public Builder trustedCertificates(Path caFile) {
      Objects.requireNonNull(caFile, "caFile");
      tls = new ClientTls(true, caFile, tls.certFile(), tls.keyFile());
      return this;
    }

    /**
     * Connects with TLS and presents this client certificate (PEM chain) and its key (PEM, unencrypted PKCS#8), for
     * a broker that requires client certificates ({@code futureq.security.tls.client-ca-file}).
     */
    public Builder clientCertificate(Path certFile, Path keyFile) {
      Objects.requireNonNull(certFile, "certFile");
      Objects.requireNonNull(keyFile, "keyFile");
      tls = new ClientTls(true, tls.caFile(), certFile, keyFile);
      return this;
    }

    /**
     * Adds interceptors to every call and stream the client makes (producers, consumers, admin calls), on every
     * broker's channel, e.g. for tracing (to add a trace header) or metrics (to time calls and count status codes).
     * Interceptors run in the order added, the first outermost; the bearer token ({@link #token}) is added after
     * them, so they do not see it.
     */
    public Builder intercept(ClientInterceptor... interceptors) {
      for (ClientInterceptor interceptor : interceptors) {
        this.interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
      }
      return this;
    }

    /**
     * @throws IllegalStateException without a target
     * @throws IllegalArgumentException if a TLS file cannot be read
     */
    public FutureQClient build() {
      if (targets.isEmpty()) {
        throw new IllegalStateException("at least one target (HOST:PORT) is required");
      }
      return new FutureQClient(this, tls.credentials());
    }
  }
}
