package io.futureq.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ReplicaMovesTest {
  private static final List<String> FIVE = List.of("node-1", "node-2", "node-3", "node-4", "node-5");

  @Test
  void aNodeAddedToFiveTakesItsShareOfReplicasFromTheMostLoadedAndNothingElseMoves() {
    Map<Integer, List<String>> before = placement(FIVE, 5, 3);
    Set<String> six = new HashSet<>(FIVE);
    six.add("node-6");
    List<ReplicaMoves.Move> moves = ReplicaMoves.plan(before, six);
    assertEquals(2, moves.size(), moves.toString()); // 15 replicas over 6 nodes: node-6 holds 2
    moves.forEach(move -> assertEquals("node-6", move.to(), moves.toString()));
    assertBalanced(apply(before, moves), six, 3);
  }

  @Test
  void aNodeRemovedHandsEachOfItsReplicasToANodeThatHoldsNoneOfThatShard() {
    Map<Integer, List<String>> before = placement(FIVE, 5, 3);
    Set<String> four = new HashSet<>(FIVE);
    four.remove("node-2");
    List<ReplicaMoves.Move> moves = ReplicaMoves.plan(before, four);
    assertEquals(3, moves.size(), moves.toString()); // node-2 held shards 0, 1 and 4
    moves.forEach(move -> assertEquals("node-2", move.from(), moves.toString()));
    assertBalanced(apply(before, moves), four, 3);
  }

  @Test
  void aBalancedPlacementNeedsNoMove() {
    assertEquals(List.of(), ReplicaMoves.plan(placement(FIVE, 5, 3), new HashSet<>(FIVE)));
  }

  @Test
  void growingFromThreeNodesHoldingEveryShardSpreadsThemOverSix() {
    List<String> three = FIVE.subList(0, 3);
    Map<Integer, List<String>> before = placement(three, 6, 3);
    Set<String> six = Set.of("node-1", "node-2", "node-3", "node-4", "node-5", "node-6");
    List<ReplicaMoves.Move> moves = ReplicaMoves.plan(before, six);
    assertEquals(9, moves.size(), moves.toString()); // 18 replicas, 3 per node: each new node takes 3
    assertBalanced(apply(before, moves), six, 3);
  }

  @Test
  void fewerNodesThanAShardHasReplicasIsRefusedNamingTheShard() {
    IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
        () -> ReplicaMoves.plan(placement(FIVE.subList(0, 3), 1, 3), Set.of("node-1", "node-2")));
    assertTrue(refused.getMessage().contains("log shard 0"), refused.getMessage());
  }

  private static Map<Integer, List<String>> placement(List<String> nodes, int shards, int factor) {
    ShardPlacement placement = ShardPlacement.of(nodes, shards, factor);
    Map<Integer, List<String>> out = new TreeMap<>();
    for (int s = 0; s < shards; s++) {
      out.put(s, placement.replicas(s));
    }
    return out;
  }

  private static Map<Integer, List<String>> apply(Map<Integer, List<String>> before, List<ReplicaMoves.Move> moves) {
    Map<Integer, List<String>> after = new TreeMap<>();
    before.forEach((shard, nodes) -> after.put(shard, new ArrayList<>(nodes)));
    for (ReplicaMoves.Move move : moves) {
      List<String> nodes = after.get(move.shard());
      assertTrue(nodes.remove(move.from()), move + " moves a replica the shard has not there");
      assertTrue(!nodes.contains(move.to()), move + " puts a second replica on one node");
      nodes.add(move.to());
    }
    return after;
  }

  /** Every shard on {@code factor} distinct nodes of {@code nodes}, no node holding two more than another. */
  private static void assertBalanced(Map<Integer, List<String>> placed, Set<String> nodes, int factor) {
    Map<String, Integer> load = new HashMap<>();
    nodes.forEach(node -> load.put(node, 0));
    placed.forEach((shard, on) -> {
      assertEquals(factor, new HashSet<>(on).size(), "shard " + shard + " on " + on);
      on.forEach(node -> {
        assertTrue(nodes.contains(node), "shard " + shard + " left on " + node);
        load.merge(node, 1, Integer::sum);
      });
    });
    int most = load.values().stream().max(Integer::compare).orElseThrow();
    int least = load.values().stream().min(Integer::compare).orElseThrow();
    assertTrue(most - least <= 1, "replicas per node " + load);
  }
}
