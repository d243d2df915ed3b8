package io.futureq.app;

import io.futureq.api.AdminService;
import io.futureq.api.RaftMembership;
import io.futureq.api.ShardCalls;
import io.futureq.api.grpc.LogShardInfo;
import io.futureq.api.grpc.RaftInfo;
import io.futureq.log.proto.ReplicaGroup;
import io.futureq.log.raft.RaftEventLog;
import io.futureq.log.raft.RaftStatus;
import io.futureq.log.raft.ReplicaHost;
import io.grpc.Status;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.grpc.GrpcServiceException;

/**
 * Presents the Raft event log's membership to the admin API. When every node holds every shard, every log shard's
 * group has the same members: a member is added to or removed from each, shard by shard. When not (more nodes than
 * the replication factor), adding or removing a node moves shards' replicas ({@link ReplicaMover}). The status is
 * that of this node's first shard.
 */
final class RaftAdmin implements RaftMembership {
  private final ReplicaHost host;
  private final ReplicaMover mover;
  private final MembershipChanges changes;

  /**
   * @param host the replicas of the shards this node holds
   * @param mover what reads every shard's group, and moves replicas when not every node holds every shard
   * @param self this node's id
   */
  RaftAdmin(ReplicaHost host, ReplicaMover mover, ShardCalls calls, Cluster cluster, String self) {
    this.host = host;
    this.mover = mover;
    this.changes = new MembershipChanges(calls, cluster, self, this::addHere, this::removeHere);
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
        .setTerm(s.term()).setCommitIndex(s.commitIndex()).setAppliedIndex(s.appliedIndex()).putAllPeers(s.peers())
        .putAllListeners(s.listeners()).build();
  }

  /**
   * Where every node holds every shard, {@code nodeId} (started with {@code futureq.raft.join}) is added to every
   * shard's group; where not, replicas move to it until no node holds two more than another ({@link ReplicaMover}).
   * Which it is is read from the groups as they are, not from this node's configuration (a node that joined has no
   * placement of its own). Runs on the cluster's oldest member, one change at a time ({@link MembershipChanges}).
   */
  @Override
  public CompletionStage<Void> add(String nodeId, String raftAddress) {
    return changes.add(nodeId, raftAddress);
  }

  /**
   * Removes {@code nodeId} from every shard's group, or, where not every node holds every shard, moves its replicas to
   * the other nodes first. A node in no group is refused (NOT_FOUND): the usual cause is a mistyped id, and the node
   * meant is still a member; a retried removal whose first answer was lost gets it too. Runs on the cluster's oldest
   * member, one change at a time.
   */
  @Override
  public CompletionStage<Void> remove(String nodeId) {
    return changes.remove(nodeId);
  }

  private CompletionStage<Void> addHere(String nodeId, String raftAddress) {
    return mover.groups().thenCompose(groups -> {
      Set<String> nodes = members(groups);
      if (placed(groups, nodes)) {
        nodes.add(nodeId);
        return mover.resize(groups, nodes, Map.of(nodeId, raftAddress));
      }
      CompletableFuture<Void> all = CompletableFuture.completedFuture(null);
      for (RaftEventLog shard : host.logs()) {
        all = all.thenCompose(done -> shard.addPeer(nodeId, raftAddress));
      }
      return all;
    });
  }

  private CompletionStage<Void> removeHere(String nodeId) {
    return mover.groups().thenCompose(groups -> {
      Set<String> members = members(groups);
      if (!members.contains(nodeId)) {
        throw new GrpcServiceException(Status.NOT_FOUND.withDescription("node_id: " + nodeId + " is not a member of "
            + "the Raft group (voters: " + String.join(", ", members) + ")"));
      }
      if (placed(groups, members)) {
        Set<String> staying = new TreeSet<>(members);
        staying.remove(nodeId);
        return mover.resize(groups, staying, Map.of());
      }
      CompletableFuture<Void> all = CompletableFuture.completedFuture(null);
      for (RaftEventLog shard : host.logs()) {
        all = all.thenCompose(done -> shard.removePeer(nodeId));
      }
      return all;
    });
  }

  /** Whether some shard's group leaves out some member of the cluster: replicas are placed, not everywhere. */
  private static boolean placed(Map<Integer, ReplicaGroup> groups, Set<String> members) {
    return groups.values().stream().anyMatch(group -> group.getVotersCount() < members.size());
  }

  private static Set<String> members(Map<Integer, ReplicaGroup> groups) {
    Set<String> nodes = new TreeSet<>();
    groups.values().forEach(group -> nodes.addAll(group.getVotersMap().keySet()));
    return nodes;
  }
}
