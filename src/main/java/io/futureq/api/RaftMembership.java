package io.futureq.api;

import io.futureq.api.grpc.LogShardInfo;
import io.futureq.api.grpc.RaftInfo;
import java.util.concurrent.CompletionStage;

/** The Raft group behind the admin API, in clustered mode. */
public interface RaftMembership {
  /** This node's view, with each shard it holds in {@code log_shards}. */
  RaftInfo status();

  /** Shard {@code shard} as this node sees it; it must hold the shard. */
  LogShardInfo shardInfo(int shard);

  /** Adds a node: first as a non-voting listener until it has caught up, then as a voter. */
  CompletionStage<Void> add(String nodeId, String raftAddress);

  /** Removes a node; fails NOT_FOUND, naming the members, when it is in no log shard's group. */
  CompletionStage<Void> remove(String nodeId);
}
