package io.futureq.log;

import static io.futureq.log.Commands.message;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.config.StorageSettings;
import io.futureq.log.proto.LogCommand;
import io.futureq.log.proto.StoreBatch;
import io.futureq.storage.RocksStore;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replicas apply the same log with their own futureq.topic.bucket-size: the first batch fixes the
 * log's, a replica with another stops instead of storing messages under other keys, and a batch
 * published through a node with another is refused alike everywhere (issue 9 #4).
 */
class SharedBucketSizeTest {
  @TempDir
  Path dir;

  /** One replica: a store and the state machine that applies entries to it, as a Raft replica does. */
  private record Replica(RocksStore store, BrokerStateMachine machine) implements AutoCloseable {
    static Replica open(Path dir, long bucketMs) {
      RocksStore store = RocksStore.open(dir, StorageSettings.defaults(dir));
      return new Replica(store, new BrokerStateMachine(store, bucketMs));
    }

    List<CommandResult> apply(long index, LogCommand command) {
      BrokerStateMachine.Prepared prepared = machine.prepare(index, List.of(command));
      store.commit(prepared.batch(), false);
      List<CommandResult> results = prepared.results();
      machine.committed(prepared);
      return results;
    }

    @Override
    public void close() {
      store.close();
    }
  }

  private static LogCommand publishedWith(long bucketMs, String payload) {
    return LogCommand.newBuilder().setStore(StoreBatch.newBuilder().setEnqueuedMs(1_000).setBucketMs(bucketMs)
        .addMessages(message("orders", payload, 5_000))).build();
  }

  @Test
  void aReplicaWithAnotherBucketSizeStopsAtTheFirstBatchInsteadOfStoringUnderOtherKeys() {
    try (Replica same = Replica.open(dir.resolve("same"), 1000);
        Replica other = Replica.open(dir.resolve("other"), 10)) {
      same.apply(1, publishedWith(1000, "first"));
      IllegalStateException stop = assertThrows(IllegalStateException.class,
          () -> other.apply(1, publishedWith(1000, "first")));
      assertTrue(stop.getMessage().contains("futureq.topic.bucket-size is 10ms")
          && stop.getMessage().contains("uses 1000ms"), stop.getMessage());
      assertEquals(0, other.machine().appliedIndex(), "the refused entry left nothing behind");
      // and it keeps refusing: it never applies past the entry that fixed the size
      assertThrows(IllegalStateException.class, () -> other.apply(1, publishedWith(1000, "first")));
    }
  }

  @Test
  void aBatchPublishedThroughANodeWithAnotherBucketSizeIsRefusedAlikeByEveryReplica() {
    try (Replica a = Replica.open(dir.resolve("a"), 1000); Replica b = Replica.open(dir.resolve("b"), 1000)) {
      for (Replica r : List.of(a, b)) {
        r.apply(1, publishedWith(1000, "first"));
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> r.apply(2, publishedWith(10, "from a misconfigured node")));
        assertTrue(refused.getMessage().contains("bucket-size is 10ms")
            && refused.getMessage().contains("cluster's is 1000ms"), refused.getMessage());
        r.apply(2, publishedWith(1000, "second"));
        assertEquals(2, r.machine().appliedIndex());
      }
    }
  }

  @Test
  void anEntryWhoseCommitFailedFixesNoSize() {
    try (Replica r = Replica.open(dir.resolve("r"), 1000)) {
      r.machine().abandoned(r.machine().prepare(1, List.of(publishedWith(1000, "not committed"))));
      // Had the abandoned entry fixed 1000 ms, this batch would be refused as published through another node; it is
      // the first, so it fixes 10 ms, which this replica (1000 ms) then refuses to apply.
      IllegalStateException stop = assertThrows(IllegalStateException.class,
          () -> r.apply(1, publishedWith(10, "first")));
      assertTrue(stop.getMessage().contains("uses 10ms"), stop.getMessage());
      r.apply(1, publishedWith(1000, "first"));
      assertThrows(IllegalArgumentException.class, () -> r.apply(2, publishedWith(10, "second")));
    }
  }

  @Test
  void theSizeIsCheckedAgainAfterTheStoreIsReplaced() throws Exception {
    try (Replica leader = Replica.open(dir.resolve("leader"), 1000);
        Replica other = Replica.open(dir.resolve("o"), 10)) {
      leader.apply(1, publishedWith(1000, "first"));
      leader.store().checkpoint(dir.resolve("checkpoint"));
      other.store().restoreFrom(dir.resolve("checkpoint"));
      assertThrows(IllegalStateException.class, () -> other.machine().reload());
    }
  }
}
