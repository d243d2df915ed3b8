package io.futureq.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.futureq.log.LogShards;
import org.junit.jupiter.api.Test;

/** The client's idea of a topic's log shard is the broker's: its producer's batches are refused otherwise. */
class LogShardTest {

  @Test
  void theClientPlacesEveryTopicInTheBrokersShard() {
    for (int count = 1; count <= 16; count++) {
      for (int i = 0; i < 500; i++) {
        String topic = (i % 3 == 0 ? "orders-" : i % 3 == 1 ? "é-" : "x.dead-letter-") + i
            + (i % 5 == 0 ? ".dead-letter" : "");
        assertEquals(LogShards.indexOf(topic, count), LogShard.of(topic, count), topic + " among " + count);
      }
    }
  }
}
