package io.futureq.app;

import io.futureq.storage.OrderedStore;
import io.futureq.storage.OrderedStore.Space;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Records in a store whether a standalone broker or a cluster node writes it, and refuses the other. A cluster
 * node's store is a replica of the Raft log: a standalone broker writing to it makes it diverge from the other
 * replicas, and a cluster node applying the log over a standalone store mixes two histories. Stores from before
 * the record existed are taken as they are and stamped with the mode that opens them.
 */
final class DataDirMode {
  private static final byte[] MODE = "mode".getBytes(StandardCharsets.UTF_8);
  private static final String STANDALONE = "standalone";
  private static final String CLUSTER = "cluster";

  private DataDirMode() {}

  /** @throws IllegalStateException if {@code store} was written in the other mode */
  static void claim(OrderedStore store, Path dataDir, boolean clustered) {
    String mode = clustered ? CLUSTER : STANDALONE;
    byte[] stored = store.get(Space.META, MODE);
    if (stored == null) {
      try (OrderedStore.Batch batch = store.newBatch()) {
        batch.put(Space.META, MODE, mode.getBytes(StandardCharsets.UTF_8));
        store.commit(batch, true);
      }
      return;
    }
    String written = new String(stored, StandardCharsets.UTF_8);
    if (written.equals(mode)) {
      return;
    }
    throw new IllegalStateException(written.equals(CLUSTER)
        ? "the data directory " + dataDir.toAbsolutePath() + " (futureq.storage.data-dir) belongs to a cluster node "
            + "and this broker runs standalone (futureq.cluster.enabled = false): its writes would make that replica "
            + "diverge from the cluster. Give the standalone broker a directory of its own"
        : "the data directory " + dataDir.toAbsolutePath() + " (futureq.storage.data-dir) was written by a standalone "
            + "broker and this node runs clustered (futureq.cluster.enabled = true): the Raft log cannot be applied "
            + "over another history. Start the node on an empty directory; it gets the cluster's state from Raft");
  }
}
