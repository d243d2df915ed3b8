package io.futureq.client;

import io.futureq.api.grpc.ClusterInfo;
import io.futureq.api.grpc.Member;
import io.grpc.ChannelCredentials;
import io.grpc.ClientInterceptor;
import io.grpc.ConnectivityState;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The brokers a client knows: the targets the application gave (seeds) and the members the last
 * {@code GetClusterInfo} named, each with one channel opened on first use. Streams start on a seed;
 * failover rotates through all of them.
 */
final class Brokers {
  /**
   * The largest response message accepted: a delivery frame is closed at 256 KiB of payloads, so
   * this leaves room for one delivery of the largest payload a broker may be configured to take.
   */
  static final int MAX_INBOUND_MESSAGE_BYTES = 64 << 20;

  private final List<String> seeds;
  private final ChannelCredentials credentials;
  /** Seeds first, then the members the last discovery found; replaced whole, never edited. */
  private volatile List<String> known;
  /** How many shards the cluster's event log has, from the last discovery; 0 until a broker said. */
  private volatile int logShards;
  private final Map<String, ManagedChannel> channels = new HashMap<>();
  private final AtomicInteger nextSeed = new AtomicInteger();
  private final AtomicInteger next = new AtomicInteger();
  private boolean closed;

  /** Adds the credentials to every call on every channel; null: none. */
  private final BearerToken token;
  private final List<ClientInterceptor> interceptors;

  /** Plaintext channels without a token. */
  Brokers(List<String> seeds) {
    this(seeds, InsecureChannelCredentials.create(), null);
  }

  /** @param token added to every call on every channel; null: none */
  Brokers(List<String> seeds, ChannelCredentials credentials, BearerToken token) {
    this(seeds, credentials, token, List.of());
  }

  /** @param interceptors the application's, on every channel, the first outermost (it sees a call first) */
  Brokers(List<String> seeds, ChannelCredentials credentials, BearerToken token,
      List<ClientInterceptor> interceptors) {
    this.token = token;
    this.interceptors = List.copyOf(interceptors);
    this.seeds = List.copyOf(seeds);
    this.credentials = credentials;
    this.known = this.seeds;
  }

  List<String> known() {
    return known;
  }

  /** The event log's shard count as the last discovery learnt it, or 0 while unknown. */
  int logShards() {
    return logShards;
  }

  /**
   * Takes the members' advertised gRPC addresses as the known brokers, after the seeds; members the
   * cluster marked unreachable come last, so that failover tries them after the live ones.
   */
  void learn(ClusterInfo info) {
    Set<String> all = new LinkedHashSet<>(seeds);
    Set<String> unreachable = new LinkedHashSet<>();
    for (Member m : info.getMembersList()) {
      if (dialable(m.getGrpcAddress())) {
        (m.getReachable() ? all : unreachable).add(m.getGrpcAddress());
      }
    }
    all.addAll(unreachable);
    known = List.copyOf(all);
    if (info.getLogShards() > 0) {
      logShards = info.getLogShards();
    }
  }

  /** Whether {@code info} names the gRPC address of every member not marked unreachable. */
  static boolean namesEveryMember(ClusterInfo info) {
    for (Member m : info.getMembersList()) {
      if (m.getReachable() && m.getGrpcAddress().isEmpty()) {
        return false;
      }
    }
    return info.getMembersCount() > 0;
  }

  /** A connection to one of the seeds, in rotation: where streams and calls start. */
  synchronized ManagedChannel seedChannel() {
    return channel(seeds.get(Math.floorMod(nextSeed.getAndIncrement(), seeds.size())));
  }

  /**
   * A connection to the next known broker in rotation, learned members included: where failover goes. Brokers whose
   * last connect failed (a dead node refuses at once) are passed over while another is left, so a stream that lost
   * its broker does not spend its next tries there.
   */
  synchronized ManagedChannel nextChannel() {
    List<String> all = known;
    ManagedChannel first = null;
    for (int tried = 0; tried < all.size(); tried++) {
      ManagedChannel candidate = channel(all.get(Math.floorMod(next.getAndIncrement(), all.size())));
      if (candidate.getState(false) != ConnectivityState.TRANSIENT_FAILURE) {
        return candidate;
      }
      if (first == null) {
        first = candidate;
      }
    }
    return first;
  }

  private ManagedChannel channel(String target) {
    if (closed) {
      throw new IllegalStateException("the client is closed");
    }
    return channels.computeIfAbsent(target, t -> {
      var builder = Grpc.newChannelBuilder(t, credentials).maxInboundMessageSize(MAX_INBOUND_MESSAGE_BYTES);
      if (token != null) {
        builder.intercept(token);
      }
      // grpc-java runs the interceptor added last first: added in reverse, the application's first is outermost.
      for (int i = interceptors.size() - 1; i >= 0; i--) {
        builder.intercept(interceptors.get(i));
      }
      return builder.build();
    });
  }

  /** Closes every channel; streams just half-closed get a moment to end cleanly (their last acks). */
  synchronized void close() {
    closed = true;
    channels.values().forEach(ManagedChannel::shutdown);
    for (ManagedChannel channel : channels.values()) {
      try {
        if (!channel.awaitTermination(2, TimeUnit.SECONDS)) {
          channel.shutdownNow();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        channel.shutdownNow();
      }
    }
  }

  /** Brokers before the advertised-address setting named their bind address, e.g. 0.0.0.0:8443. */
  private static boolean dialable(String hostPort) {
    return !hostPort.isEmpty() && !hostPort.startsWith("0.0.0.0:") && !hostPort.startsWith("[::]:")
        && !hostPort.startsWith(":::");
  }
}
