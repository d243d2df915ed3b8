package io.futureq.log;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which nodes hold a replica of each log shard ({@code futureq.cluster.replication-factor}): of the cluster's nodes
 * sorted by id, shard s lives on the r nodes from position s onwards, wrapping round (r the replication factor, or
 * every node when there are no more nodes than that). Shard s prefers the first of them as its leader, so that the
 * shards' leaderships spread over the nodes as their replicas do. Placement is decided when a shard's Raft group is
 * created, from the configured peers ({@code futureq.raft.peers}); after that a group's members live in its log.
 *
 * @param nodes the cluster's node ids, sorted
 * @param shards how many log shards
 * @param replicationFactor how many nodes hold each shard, at most
 */
public record ShardPlacement(List<String> nodes, int shards, int replicationFactor) {
  public ShardPlacement {
    if (nodes.isEmpty() || shards < 1 || replicationFactor < 1) {
      throw new IllegalArgumentException("placement of " + shards + " shards with replication factor "
          + replicationFactor + " over nodes " + nodes);
    }
    nodes = List.copyOf(new TreeSet<>(nodes));
  }

  /** The placement of {@code shards} shards over {@code nodes} (in any order). */
  public static ShardPlacement of(Collection<String> nodes, int shards, int replicationFactor) {
    return new ShardPlacement(List.copyOf(nodes), shards, replicationFactor);
  }

  /** Whether every node holds every shard (no more nodes than the replication factor). */
  public boolean everywhere() {
    return nodes.size() <= replicationFactor;
  }

  /** The nodes holding shard {@code shard}, its preferred leader first. */
  public List<String> replicas(int shard) {
    int n = nodes.size();
    List<String> out = new ArrayList<>();
    for (int i = 0; i < Math.min(replicationFactor, n); i++) {
      out.add(nodes.get((shard + i) % n));
    }
    return out;
  }

  /** The shards node {@code node} holds, in order. */
  public Set<Integer> shardsOf(String node) {
    Set<Integer> out = new TreeSet<>();
    for (int s = 0; s < shards; s++) {
      if (replicas(s).contains(node)) {
        out.add(s);
      }
    }
    return out;
  }
}
