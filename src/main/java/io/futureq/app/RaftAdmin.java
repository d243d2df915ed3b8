package io.futureq.app;

import io.futureq.api.AdminService;
import io.futureq.api.RaftMembership;
import io.futureq.api.grpc.LogShardInfo;
import io.futureq.api.grpc.RaftInfo;
import io.futureq.log.ShardPlacement;
import io.futureq.log.proto.ReplicaGroup;
import io.futureq.log.raft.RaftEventLog;
import io.futureq.log.raft.RaftStatus;
import io.futureq.log.raft.ReplicaHost;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Presents the Raft event log's membership to the admin API. When every node holds every shard, every log shard's
 * group has the same members: a member is added to or removed from each, shard by shard. When not (more nodes than
 * the replication factor), adding or removing a node moves shards' replicas ({@link ReplicaMover}). The status is
 * that of this node's first shard.
 */
final class RaftAdmin implements RaftMembership {
  private final ReplicaHost host;
  private final ShardPlacement placement;
  private final ReplicaMover mover;

  /**
   * @param host the replicas of the shards this node holds
   * @param placement the shards' placement when not every node holds every shard, else null
   * @param mover what moves replicas when a node is added or removed in that layout
   */
  RaftAdmin(ReplicaHost host, ShardPlacement placement, ReplicaMover mover) {
    this.host = host;
    this.placement = placement;
    this.mover = mover;
  }

  @Override
  public RaftInfo status() {
    List<RaftEventLog> shards = host.logs();
    if (shards.isEmpty()) {
      return RaftInfo.newBuilder().setRole(AdminService.NOT_HELD).build();
    }
    RaftStatus s = shards.get(0).status();
    return RaftInfo.newBuilder().setLeaderId(s.leaderId()).setRole(s.role().name()).setTerm(s.term())
        .setCommitIndex(s.commitIndex()).setAppliedIndex(s.appliedIndex()).putAllPeers(s.peers())
        .putAllListeners(s.listeners()).addAllLogShards(shards.stream().map(RaftAdmin::shardInfo).toList()).build();
  }

  @Override
  public LogShardInfo shardInfo(int shard) {
    return shardInfo(host.logs().stream().filter(log -> log.shard() == shard).findFirst()
        .orElseThrow(() -> new IllegalStateException("this node holds no replica of log shard " + shard)));
  }

  private static LogShardInfo shardInfo(RaftEventLog shard) {
    RaftStatus s = shard.status();
    return LogShardInfo.newBuilder().setShard(shard.shard()).setLeaderId(s.leaderId()).setRole(s.role().name())
        .setTerm(s.term()).setCommitIndex(s.commitIndex()).setAppliedIndex(s.appliedIndex()).build();
  }

  /**
   * Where every node holds every shard, {@code nodeId} (started with {@code futureq.raft.join}) is added to every
   * shard's group; where not, replicas move to it until no node holds two more than another ({@link ReplicaMover}).
   */
  @Override
  public CompletionStage<Void> add(String nodeId, String raftAddress) {
    if (placement != null) {
      return mover.groups().thenCompose(groups -> {
        Set<String> nodes = members(groups);
        nodes.add(nodeId);
        return mover.resize(nodes, Map.of(nodeId, raftAddress));
      });
    }
    CompletableFuture<Void> all = CompletableFuture.completedFuture(null);
    for (RaftEventLog shard : host.logs()) {
      all = all.thenCompose(done -> shard.addPeer(nodeId, raftAddress));
    }
    return all;
  }

  /** Where not every node holds every shard, the replicas of {@code nodeId} first move to the other nodes. */
  @Override
  public CompletionStage<Void> remove(String nodeId) {
    if (placement != null) {
      return mover.groups().thenCompose(groups -> {
        Set<String> nodes = members(groups);
        nodes.remove(nodeId);
        return mover.resize(nodes, Map.of());
      });
    }
    CompletableFuture<Void> all = CompletableFuture.completedFuture(null);
    for (RaftEventLog shard : host.logs()) {
      all = all.thenCompose(done -> shard.removePeer(nodeId));
    }
    return all;
  }

  private static Set<String> members(Map<Integer, ReplicaGroup> groups) {
    Set<String> nodes = new TreeSet<>();
    groups.values().forEach(group -> nodes.addAll(group.getVotersMap().keySet()));
    return nodes;
  }
}
