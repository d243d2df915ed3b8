package io.futureq.app;

import io.futureq.log.BrokerStateMachine;
import io.futureq.storage.OrderedStore;
import io.futureq.storage.OrderedStore.Space;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Records in each shard's store how many shards the event log has, and refuses another count later: a topic's shard
 * follows from its name and the count, so with another count topics would be looked for in shards that never held
 * them. A shard 0 store from before shards existed, with entries applied, had one; a node may not hold shard 0, so
 * every store it holds records the count.
 */
final class LogShardCount {
  private static final byte[] KEY = "log-shards".getBytes(StandardCharsets.UTF_8);

  private LogShardCount() {}

  /** @throws IllegalStateException if {@code store}, shard {@code shard}'s, was written with another count */
  static void claim(OrderedStore store, int shard, Path dataDir, int count) {
    byte[] stored = store.get(Space.META, KEY);
    int written;
    if (stored != null) {
      written = ByteBuffer.wrap(stored).getInt();
    } else if (shard == 0 && appliedIndex(store) > 0) {
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
      try (OrderedStore.Batch batch = store.newBatch()) {
        batch.put(Space.META, KEY, ByteBuffer.allocate(Integer.BYTES).putInt(count).array());
        store.commit(batch, true);
      }
    }
  }

  private static long appliedIndex(OrderedStore store) {
    try (OrderedStore.View view = store.view()) {
      return BrokerStateMachine.appliedIndexIn(view);
    }
  }
}
