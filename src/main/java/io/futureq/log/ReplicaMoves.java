package io.futureq.log;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The replica moves that bring the shards' placement from the groups' members as they are to a cluster of other
 * nodes (one added, one to be removed): every replica on a node that leaves goes to a node that stays, then
 * replicas go from the most loaded nodes to the least until no node holds two more than another. As few moves as
 * that takes, each one replica of one shard, so the cluster keeps every shard's quorum throughout (the new replica
 * is added and caught up before the old one is removed). Deterministic: ties go to the lowest shard and node id.
 */
public final class ReplicaMoves {
  /** Shard {@code shard}'s replica on node {@code from} goes to node {@code to}. */
  public record Move(int shard, String from, String to) {}

  private ReplicaMoves() {}

  /**
   * @param holders each shard's nodes now (its group's voters)
   * @param nodes the nodes the cluster is to have
   * @throws IllegalArgumentException if a shard would need more nodes than there are
   */
  public static List<Move> plan(Map<Integer, ? extends Iterable<String>> holders, Set<String> nodes) {
    Map<Integer, Set<String>> placed = new TreeMap<>();
    holders.forEach((shard, on) -> {
      Set<String> set = new TreeSet<>();
      on.forEach(set::add);
      placed.put(shard, set);
    });
    Map<String, Integer> load = new TreeMap<>();
    nodes.forEach(node -> load.put(node, 0));
    placed.values().forEach(on -> on.stream().filter(load::containsKey)
        .forEach(node -> load.merge(node, 1, Integer::sum)));
    List<Move> moves = new ArrayList<>();
    placed.forEach((shard, on) -> {
      for (String leaving : on.stream().filter(node -> !nodes.contains(node)).toList()) {
        String to = load.keySet().stream().filter(node -> !on.contains(node))
            .min(Comparator.comparing(load::get)).orElseThrow(() -> new IllegalArgumentException("log shard "
                + shard + " has " + on.size() + " replicas, more than the " + nodes.size() + " nodes " + nodes));
        moves.add(move(placed, load, shard, leaving, to));
      }
    });
    while (true) {
      String most = load.keySet().stream().max(Comparator.comparing(load::get)).orElseThrow();
      String least = load.keySet().stream().min(Comparator.comparing(load::get)).orElseThrow();
      if (load.get(most) - load.get(least) <= 1) {
        return moves;
      }
      int shard = placed.entrySet().stream().filter(e -> e.getValue().contains(most) && !e.getValue().contains(least))
          .map(Map.Entry::getKey).findFirst().orElseThrow();
      moves.add(move(placed, load, shard, most, least));
    }
  }

  private static Move move(Map<Integer, Set<String>> placed, Map<String, Integer> load, int shard, String from,
      String to) {
    placed.get(shard).remove(from);
    placed.get(shard).add(to);
    load.computeIfPresent(from, (node, n) -> n - 1);
    load.merge(to, 1, Integer::sum);
    return new Move(shard, from, to);
  }
}
