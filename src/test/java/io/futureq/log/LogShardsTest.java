package io.futureq.log;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which log shard a topic belongs to: stable, spread, and its dead letters beside it. */
class LogShardsTest {

  @Test
  void aTopicsShardFollowsFromItsNameAloneAndNeverChanges() {
    // Pinned: a topic's shard must not move between versions, or its messages would be looked for elsewhere.
    assertEquals(0, LogShards.indexOf("orders", 1));
    assertEquals(LogShards.indexOf("orders", 3), LogShards.indexOf("orders", 3));
    assertEquals(0, LogShards.indexOf("t0", 3));
    assertEquals(2, LogShards.indexOf("t1", 3));
    assertEquals(1, LogShards.indexOf("t2", 3));
  }

  @Test
  void aDeadLetterTopicBelongsToItsTopicsShard() {
    for (int i = 0; i < 100; i++) {
      String topic = "topic-" + i;
      assertEquals(LogShards.indexOf(topic, 5), LogShards.indexOf(topic + BrokerStateMachine.DEAD_LETTER_SUFFIX, 5));
      assertEquals(LogShards.indexOf(topic, 5), LogShards.indexOf(topic + ".dead-letter.dead-letter", 5));
    }
  }

  @Test
  void topicsSpreadOverEveryShard() {
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < 64; i++) {
      int shard = LogShards.indexOf("t" + i, 7);
      seen.add(shard);
    }
    assertEquals(7, seen.size());
  }
}
