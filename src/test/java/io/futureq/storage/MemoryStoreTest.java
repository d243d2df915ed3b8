package io.futureq.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.storage.OrderedStore.Space;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What only the in-memory store does: it lets go of superseded versions (memory follows the live
 * data), undoes a commit that fails halfway, refuses checkpoints, and keeps nothing after close.
 * The behaviour it shares with RocksDB is {@link OrderedStoreContractTest}.
 */
class MemoryStoreTest {
  @TempDir
  Path dir;

  private final MemoryStore store = MemoryStore.create();

  @AfterEach
  void close() {
    store.close();
  }

  @Test
  void deletedAndRewrittenKeysLeaveOnlyTheLiveVersions() {
    for (int round = 0; round < 10; round++) {
      try (OrderedStore.Batch batch = store.newBatch()) {
        for (int i = 0; i < 1000; i++) {
          batch.put(Space.MESSAGES, key(i), bytes("round " + round));
        }
        store.commit(batch, true);
      }
    }
    try (OrderedStore.Batch batch = store.newBatch()) {
      for (int i = 0; i < 1000; i += 2) {
        batch.delete(Space.MESSAGES, key(i));
      }
      store.commit(batch, true);
    }

    assertEquals(500, store.versions(Space.MESSAGES));
    assertArrayEquals(bytes("round 9"), store.get(Space.MESSAGES, key(1)));
  }

  @Test
  void versionsAViewStillReadsAreKeptUntilItCloses() {
    put(key(1), "old");
    put(key(2), "doomed");
    OrderedStore.View view = store.view();
    for (int i = 0; i < 100; i++) {
      put(key(1), "new " + i);
    }
    delete(key(2));

    assertArrayEquals(bytes("old"), view.get(Space.MESSAGES, key(1)));
    assertArrayEquals(bytes("doomed"), view.get(Space.MESSAGES, key(2)));
    assertTrue(store.versions(Space.MESSAGES) > 2, "versions the view reads were dropped");

    view.close();
    put(key(3), "any commit trims");

    assertEquals(2, store.versions(Space.MESSAGES));
    assertArrayEquals(bytes("new 99"), store.get(Space.MESSAGES, key(1)));
    assertNull(store.get(Space.MESSAGES, key(2)));
  }

  @Test
  void aCommitThatFailsHalfwayLeavesNothingOfItsBatch() {
    put(key(1), "before");
    try (OrderedStore.Batch batch = store.newBatch()) {
      batch.put(Space.MESSAGES, key(1), bytes("overwritten"));
      batch.put(Space.MESSAGES, key(2), bytes("new"));
      batch.delete(Space.INDEX, key(3));
      batch.put(null, key(4), bytes("a write to no space fails the commit here"));

      assertThrows(StorageException.class, () -> store.commit(batch, true));
    }

    assertArrayEquals(bytes("before"), store.get(Space.MESSAGES, key(1)));
    assertNull(store.get(Space.MESSAGES, key(2)));
    assertEquals(1, store.versions(Space.MESSAGES));
    put(key(2), "the store goes on");
    assertArrayEquals(bytes("the store goes on"), store.get(Space.MESSAGES, key(2)));
  }

  @Test
  void checkpointsAreRefusedNamingTheEngine() {
    StorageException checkpoint = assertThrows(StorageException.class, () -> store.checkpoint(dir.resolve("cp")));
    StorageException restore = assertThrows(StorageException.class, () -> store.restoreFrom(dir));

    assertTrue(checkpoint.getMessage().contains("futureq.storage.engine = memory"), checkpoint.getMessage());
    assertTrue(restore.getMessage().contains(dir.toString()), restore.getMessage());
    assertTrue(Files.notExists(dir.resolve("cp")));
  }

  @Test
  void aClosedStoreHoldsNothingAndRefusesReadsAndWrites() {
    put(key(1), "v");
    store.close();

    assertEquals(0, store.versions(Space.MESSAGES));
    assertThrows(StorageException.class, () -> store.get(Space.MESSAGES, key(1)));
    assertThrows(StorageException.class, () -> put(key(2), "v"));
    store.close();
  }

  private void put(byte[] key, String value) {
    try (OrderedStore.Batch batch = store.newBatch()) {
      batch.put(Space.MESSAGES, key, bytes(value));
      store.commit(batch, true);
    }
  }

  private void delete(byte[] key) {
    try (OrderedStore.Batch batch = store.newBatch()) {
      batch.delete(Space.MESSAGES, key);
      store.commit(batch, true);
    }
  }

  private static byte[] key(int i) {
    return bytes(String.format("k%04d", i));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
