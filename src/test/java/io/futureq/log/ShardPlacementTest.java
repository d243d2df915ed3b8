package io.futureq.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ShardPlacementTest {
  private static final List<String> FIVE = List.of("node-3", "node-1", "node-5", "node-2", "node-4");

  @Test
  void eachShardLivesOnReplicationFactorNodesFromItsPositionWrappingRound() {
    ShardPlacement placement = ShardPlacement.of(FIVE, 5, 3);
    assertFalse(placement.everywhere());
    assertEquals(List.of("node-1", "node-2", "node-3"), placement.replicas(0));
    assertEquals(List.of("node-4", "node-5", "node-1"), placement.replicas(3));
    assertEquals(List.of("node-5", "node-1", "node-2"), placement.replicas(4));
    assertEquals(Set.of(0, 3, 4), placement.shardsOf("node-1"));
  }

  @Test
  void everyNodeHoldsAsManyShardsAndPrefersToLeadAsEvenly() {
    ShardPlacement placement = ShardPlacement.of(FIVE, 10, 3);
    Map<String, Integer> held = new HashMap<>();
    Map<String, Integer> preferred = new HashMap<>();
    for (int s = 0; s < 10; s++) {
      placement.replicas(s).forEach(n -> held.merge(n, 1, Integer::sum));
      preferred.merge(placement.replicas(s).get(0), 1, Integer::sum);
    }
    for (String node : FIVE) {
      assertEquals(6, held.get(node), node + " holds 10 x 3 / 5 replicas");
      assertEquals(2, preferred.get(node), node + " is preferred for 10 / 5 shards");
    }
  }

  @Test
  void withNoMoreNodesThanTheFactorEveryNodeHoldsEveryShard() {
    ShardPlacement placement = ShardPlacement.of(List.of("b", "a", "c"), 3, 3);
    assertTrue(placement.everywhere());
    assertEquals(List.of("b", "c", "a"), placement.replicas(1));
    assertEquals(Set.of(0, 1, 2), placement.shardsOf("a"));
    assertEquals(List.of("a", "b"), ShardPlacement.of(List.of("b", "a"), 1, 3).replicas(0));
  }
}
