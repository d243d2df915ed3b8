package io.futureq.log.raft;

import io.futureq.config.ClusterTlsSettings;
import io.futureq.config.RaftSettings;
import io.futureq.tls.PemFiles;
import io.futureq.tls.TlsContexts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.client.retry.RequestTypeDependentRetryPolicy;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.proto.RaftProtos.RaftClientRequestProto.TypeCase;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.ExponentialBackoffRetry;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachine;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/** Turns {@link RaftSettings} into Ratis properties, the group, a server and clients. */
final class RaftServerFactory {
  /** The Raft group of log shard 0 (the one group of a cluster before shards); fixed, so every node derives it. */
  static final RaftGroupId GROUP_ID = RaftGroupId.valueOf(UUID.fromString("5f0d3a52-7c1e-4b8e-9d27-f0e0a1c2b3d4"));
  /** Room for framing beyond an entry's commands in Ratis buffers and gRPC messages. */
  private static final long FRAMING_BYTES = 1L << 20;
  /** The longest pause between two tries of a write (on another peer, or once the leader is ready). */
  private static final Duration RETRY_PAUSE = Duration.ofMillis(100);
  /**
   * A write's first retry comes after about this pause times 2, each later one after twice the last, up to
   * {@link #RETRY_PAUSE}. Right after an election the new leader refuses requests until its first entry is applied
   * (Ratis's LeaderNotReadyException), 50-300 ms on a loaded machine; a fixed 100 ms pause made its first entry
   * (the write leader's recovery barrier) wait up to 100 ms longer than that, and the writes behind it too.
   */
  private static final Duration FIRST_RETRY_PAUSE = Duration.ofMillis(5);
  /**
   * Longest one attempt of a client request waits before it is retried; Ratis's default. A write sent
   * to a leader that then died waits this long, but a shorter attempt (1 s was tried) made failover
   * slower on a loaded machine, not faster: a live leader's slow answers then count as failures, and
   * the client moves off it (docs/benchmarks.md, "Failover as clients see it").
   */
  private static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(3);

  private RaftServerFactory() {}

  /** The Raft group of log shard {@code shard}: shard 0's as it always was, the others' derived from their number. */
  static RaftGroupId groupId(int shard) {
    return shard == 0 ? GROUP_ID : RaftGroupId.valueOf(UUID.nameUUIDFromBytes(("futureq-log-shard-" + shard)
        .getBytes(StandardCharsets.UTF_8)));
  }

  /** The configured voters of shard {@code shard}'s group, each with its {@linkplain #priority priority}. */
  static RaftGroup group(RaftSettings settings, LeaderSpread spread) {
    Map<String, String> voters = new TreeMap<>(settings.peers());
    if (spread.replicas() != null) {
      voters.keySet().retainAll(spread.replicas());
    }
    return RaftGroup.valueOf(spread.groupId(), spread.peers(voters));
  }

  /**
   * The group a server starts with when its storage has none. A joining node starts with no peers, so
   * Ratis keeps it out of elections until a leader adds it (as its own tests start new peers).
   */
  static RaftGroup initialGroup(RaftSettings settings, LeaderSpread spread) {
    return settings.join() ? RaftGroup.valueOf(spread.groupId()) : group(settings, spread);
  }

  /** The group as this node's server knows it now (peers added since start-up included), else as configured. */
  static RaftGroup currentGroup(RaftServer server, RaftSettings settings, LeaderSpread spread) {
    try {
      Collection<RaftPeer> peers = server.getDivision(spread.groupId()).getRaftConf().getCurrentPeers();
      return peers.isEmpty() ? group(settings, spread) : RaftGroup.valueOf(spread.groupId(), peers);
    } catch (IOException e) {
      return group(settings, spread);
    }
  }

  /**
   * Which node each log shard's group prefers as its leader, so that the shards' leaderships spread over the nodes.
   * With a placement ({@code replicas}, the shard's nodes from {@link io.futureq.log.ShardPlacement}, preferred
   * leader first) the first of them; without (every node holds every shard), of the voters sorted by id the one at
   * s modulo their number. The preferred voter gets a higher Ratis priority: a leader of lower priority hands
   * leadership to it once it has caught up, so the spread comes back after that node returns. With one shard no
   * voter is preferred: leadership stays where elections put it.
   *
   * @param replicas the nodes the shard's group is created with, or null for every configured peer
   */
  record LeaderSpread(int shard, int shards, List<String> replicas) {
    /** Shard {@code shard} of {@code shards}, on every configured peer. */
    LeaderSpread(int shard, int shards) {
      this(shard, shards, null);
    }

    RaftGroupId groupId() {
      return RaftServerFactory.groupId(shard);
    }

    /** Voters (node id to address) as peers with their priorities. */
    List<RaftPeer> peers(Map<String, String> voters) {
      List<String> ids = new ArrayList<>(new TreeMap<>(voters).keySet());
      String preferred = shards == 1 || ids.isEmpty() ? null
          : replicas != null && voters.containsKey(replicas.get(0)) ? replicas.get(0) : ids.get(shard % ids.size());
      List<RaftPeer> out = new ArrayList<>();
      voters.forEach((id, address) -> out.add(RaftPeer.newBuilder().setId(id).setAddress(address)
          .setPriority(id.equals(preferred) ? 1 : 0).build()));
      return out;
    }
  }

  static Map<String, String> addresses(Collection<RaftPeer> peers) {
    Map<String, String> out = new TreeMap<>();
    peers.forEach(p -> out.put(p.getId().toString(), p.getAddress()));
    return out;
  }

  static RaftPeer peer(String id, String address) {
    return RaftPeer.newBuilder().setId(id).setAddress(address).build();
  }

  /** Where Ratis keeps this node's log, metadata and snapshots of shard {@code shard}'s group. */
  static Path groupDir(RaftSettings settings, int shard) {
    return settings.storageDir().resolve(groupId(shard).getUuid().toString());
  }

  static RaftProperties properties(RaftSettings settings) {
    RaftProperties p = new RaftProperties();
    RaftConfigKeys.Rpc.setType(p, new GuardedGrpcRpc());
    RaftServerConfigKeys.setStorageDir(p, List.of(settings.storageDir().toFile()));
    GrpcConfigKeys.Server.setHost(p, settings.host());
    GrpcConfigKeys.Server.setPort(p, settings.port());
    // Ratis' client and admin protocols on the server's port, so under its TLS: with cluster TLS only a member
    // certificate gets a write or a membership change through (docs/security.md). They cannot move to loopback:
    // every member's client writes to the leader, wherever it runs. Ratis 3.2 does this by default; said here
    // so that no default can open them on a port of their own.
    GrpcConfigKeys.Admin.setHost(p, settings.host());
    GrpcConfigKeys.Admin.setPort(p, settings.port());
    GrpcConfigKeys.Client.setHost(p, settings.host());
    GrpcConfigKeys.Client.setPort(p, settings.port());

    RaftServerConfigKeys.Rpc.setTimeoutMin(p, time(settings.electionTimeout()));
    RaftServerConfigKeys.Rpc.setTimeoutMax(p, time(settings.electionTimeout().multipliedBy(2)));

    // Snapshot every threshold entries and drop the log up to it, even ahead of a lagging follower:
    // the follower is then sent the snapshot, so the log stays bounded whoever is down.
    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, settings.snapshotThreshold());
    RaftServerConfigKeys.Snapshot.setRetentionFileNum(p, CheckpointStorage.DEFAULT_RETAINED);
    RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
    RaftServerConfigKeys.Log.setPurgeGap(p, 1);
    RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf(settings.logSegmentBytes()));

    // Ratis refuses a log entry (our entry plus its client and call ids) larger than the appender
    // buffer; the log writer's buffer must exceed that, and gRPC must carry an append of one entry.
    long entry = settings.maxEntryBytes() + FRAMING_BYTES;
    RaftServerConfigKeys.Log.Appender.setBufferByteLimit(p, SizeInBytes.valueOf(entry));
    RaftServerConfigKeys.Log.setWriteBufferSize(p, SizeInBytes.valueOf(entry + FRAMING_BYTES));
    RaftServerConfigKeys.Log.setQueueByteLimit(p, SizeInBytes.valueOf(Math.max(entry * 2, 64L << 20)));
    GrpcConfigKeys.setMessageSizeMax(p, SizeInBytes.valueOf(entry + FRAMING_BYTES));

    // The warm-up request a client sends by default would retry on its own while no leader exists.
    RaftClientConfigKeys.Async.Experimental.setSendDummyRequest(p, false);
    Duration attempt = settings.requestTimeout().compareTo(ATTEMPT_TIMEOUT) < 0 ? settings.requestTimeout()
        : ATTEMPT_TIMEOUT;
    RaftClientConfigKeys.Rpc.setRequestTimeout(p, time(attempt));
    return p;
  }

  /**
   * What Ratis takes as objects rather than properties: with cluster TLS, one identity and CA for the server, its
   * appenders and every client, each side requiring the other's certificate (Ratis checks the peer's address
   * against the certificate's names as a client).
   */
  static Parameters parameters(ClusterTlsSettings tls) {
    Parameters p = new Parameters();
    if (tls.enabled()) {
      GrpcConfigKeys.TLS.setConf(p, new GrpcTlsConfig(
          TlsContexts.keyManager(PemFiles.keyAndChain(tls.certFile(), tls.keyFile())),
          TlsContexts.trustManager(PemFiles.certificates(tls.caFile())), true));
    }
    return p;
  }

  /**
   * A server for this node, not started, with shard 0's group; {@code machines} gives each group's state machine.
   * Its stored groups and membership, if any, win over {@code settings.peers}.
   */
  static RaftServer server(RaftSettings settings, RaftProperties properties, StateMachine.Registry machines,
      RaftGroup shardZero) throws IOException {
    return RaftServer.newBuilder()
        .setParameters(parameters(settings.tls()))
        .setServerId(RaftPeerId.valueOf(settings.nodeId()))
        .setGroup(shardZero)
        .setProperties(properties)
        .setStateMachineRegistry(machines)
        .setOption(RaftStorage.StartupOption.RECOVER)
        .build();
  }

  /**
   * A client of the group that follows leader changes: a write is retried (same call id, so the
   * leader's retry cache keeps it applied once) until it is answered or the request timeout passed.
   *
   * @param leader where its first request goes, or null to let the client pick
   */
  static RaftClient client(RaftSettings settings, RaftProperties properties, RaftGroup group, RaftPeerId leader) {
    // Every request type gets the bound: Ratis's fallback for a type without a policy retries forever.
    RequestTypeDependentRetryPolicy.Builder retry = RequestTypeDependentRetryPolicy.newBuilder();
    for (TypeCase type : TypeCase.values()) {
      retry.setRetryPolicy(type, ExponentialBackoffRetry.newBuilder().setBaseSleepTime(time(FIRST_RETRY_PAUSE))
              .setMaxSleepTime(time(RETRY_PAUSE)).setMaxAttempts(Integer.MAX_VALUE).build())
          .setTimeout(type, time(settings.requestTimeout()));
    }
    return RaftClient.newBuilder().setRaftGroup(group).setProperties(properties).setRetryPolicy(retry.build())
        .setLeaderId(leader).setParameters(parameters(settings.tls())).build();
  }

  /** A client for membership changes and group queries: a bounded number of attempts within {@code timeout}. */
  static RaftClient adminClient(RaftProperties properties, Parameters parameters, RaftGroup group,
      Duration timeout) {
    int attempts = (int) Math.max(1, timeout.toMillis() / RETRY_PAUSE.toMillis());
    return RaftClient.newBuilder().setRaftGroup(group).setProperties(properties).setParameters(parameters)
        .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(attempts, time(RETRY_PAUSE))).build();
  }

  static TimeDuration time(Duration duration) {
    return TimeDuration.valueOf(duration.toMillis(), TimeUnit.MILLISECONDS);
  }
}
