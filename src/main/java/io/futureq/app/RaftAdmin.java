package io.futureq.app;

import io.futureq.api.RaftMembership;
import io.futureq.api.grpc.LogShardInfo;
import io.futureq.api.grpc.RaftInfo;
import io.futureq.log.ShardPlacement;
import io.futureq.log.raft.RaftEventLog;
import io.futureq.log.raft.RaftStatus;
import io.futureq.log.raft.ReplicaHost;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Presents the Raft event log's membership to the admin API. When every node holds every shard, every log shard's
 * group has the same members: a member is added to or removed from each, shard by shard. The status is that of this
 * node's first shard.
 */
final class RaftAdmin implements RaftMembership {
  private final ReplicaHost host;
  private final ShardPlacement placement;

  /**
   * @param host the replicas of the shards this node holds
   * @param placement the shards' placement when not every node holds every shard, else null
   */
  RaftAdmin(ReplicaHost host, ShardPlacement placement) {
    this.host = host;
    this.placement = placement;
  }

  @Override
  public String changesRefused() {
    return placement == null ? null : "each log shard is held by " + placement.replicationFactor() + " of the "
        + placement.nodes().size() + " nodes (futureq.cluster.replication-factor): adding or removing a node would "
        + "have to move shards' replicas, which is not built yet; membership is fixed at creation in this layout";
  }

  @Override
  public RaftInfo status() {
    List<RaftEventLog> shards = host.logs();
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

  @Override
  public CompletionStage<Void> add(String nodeId, String raftAddress) {
    CompletableFuture<Void> all = CompletableFuture.completedFuture(null);
    for (RaftEventLog shard : host.logs()) {
      all = all.thenCompose(done -> shard.addPeer(nodeId, raftAddress));
    }
    return all;
  }

  @Override
  public CompletionStage<Void> remove(String nodeId) {
    CompletableFuture<Void> all = CompletableFuture.completedFuture(null);
    for (RaftEventLog shard : host.logs()) {
      all = all.thenCompose(done -> shard.removePeer(nodeId));
    }
    return all;
  }
}
