package io.futureq.app;

import io.futureq.log.BrokerStateMachine;
import io.futureq.storage.OrderedStore;
import io.futureq.storage.OrderedStore.Space;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Records in shard 0's store how many shards the event log has, and refuses another count later: a topic's shard
 * follows from its name and the count, so with another count topics would be looked for in shards that never held
 * them. A store from before shards existed, with entries applied, had one.
 */
final class LogShardCount {
  private static final byte[] KEY = "log-shards".getBytes(StandardCharsets.UTF_8);

  private LogShardCount() {}

  /** @throws IllegalStateException if {@code shardZero} was written with another count */
  static void claim(OrderedStore shardZero, Path dataDir, int count) {
    byte[] stored = shardZero.get(Space.META, KEY);
    int written;
    if (stored != null) {
      written = ByteBuffer.wrap(stored).getInt();
    } else if (appliedIndex(shardZero) > 0) {
      written = 1;
    } else {
      written = count;
    }
    if (written != count) {
      throw new IllegalStateException("futureq.cluster.log-shards is " + count + " but the data directory "
          + dataDir.toAbsolutePath() + " was created with " + written + "; the count cannot change for an existing "
          + "directory (a topic's shard follows from it). Start with log-shards = " + written + ", or on an empty "
          + "directory");
    }
    if (stored == null) {
      try (OrderedStore.Batch batch = shardZero.newBatch()) {
        batch.put(Space.META, KEY, ByteBuffer.allocate(Integer.BYTES).putInt(count).array());
        shardZero.commit(batch, true);
      }
    }
  }

  private static long appliedIndex(OrderedStore store) {
    try (OrderedStore.View view = store.view()) {
      return BrokerStateMachine.appliedIndexIn(view);
    }
  }
}
