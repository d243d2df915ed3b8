package io.futureq.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.config.StorageSettings;
import io.futureq.storage.OrderedStore.Space;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RocksStoreRestoreTest {
  @TempDir
  Path dir;

  private RocksStore store;

  @BeforeEach
  void open() {
    store = RocksStore.open(dir.resolve("data"), StorageSettings.defaults(dir.resolve("data")));
  }

  @AfterEach
  void close() {
    store.close();
  }

  @Test
  void restoreMakesEverySpaceEqualToTheCheckpoint() {
    for (Space space : Space.values()) {
      put(space, "kept", "old");
      put(space, "changed", "old");
    }
    Path checkpoint = dir.resolve("checkpoint");
    store.checkpoint(checkpoint);
    for (Space space : Space.values()) {
      put(space, "changed", "new");
      put(space, "added", "new");
      put(space, "\u00ff\u00ff-last", "new");
    }
    try (OrderedStore.View before = store.view()) {
      store.restoreFrom(checkpoint);

      assertArrayEquals(bytes("new"), before.get(Space.MESSAGES, bytes("changed")), "an open view keeps its state");
    }

    for (Space space : Space.values()) {
      assertEquals(List.of("changed=old", "kept=old"), entries(space), space.name());
    }
  }

  @Test
  void aRestoreInManySmallBatchesEndsEqualToTheCheckpoint() {
    for (int i = 0; i < 500; i++) {
      for (Space space : Space.values()) {
        put(space, String.format("key-%04d", i), "value-" + i);
      }
    }
    Path checkpoint = dir.resolve("checkpoint");
    store.checkpoint(checkpoint);
    for (Space space : Space.values()) {
      put(space, "key-0000", "changed");
      put(space, "zzz-added", "new");
    }
    store.restoreFrom(checkpoint, 64); // a few entries per batch

    for (Space space : Space.values()) {
      List<String> entries = entries(space);
      assertEquals(500, entries.size(), space.name());
      assertEquals("key-0000=value-0", entries.get(0), space.name());
      assertEquals("key-0499=value-499", entries.get(499), space.name());
    }
  }

  @Test
  void restoringFromAMissingDirectoryChangesNothing() {
    put(Space.META, "k", "v");

    StorageException e = assertThrows(StorageException.class, () -> store.restoreFrom(dir.resolve("nowhere")));

    assertTrue(e.getMessage().contains("nowhere"), e.getMessage());
    assertArrayEquals(bytes("v"), store.get(Space.META, bytes("k")));
    assertNull(store.get(Space.META, bytes("other")));
  }

  private List<String> entries(Space space) {
    List<String> out = new ArrayList<>();
    try (OrderedStore.View view = store.view(); OrderedStore.RangeIterator it = view.range(space, new byte[0], null)) {
      for (; it.valid(); it.next()) {
        out.add(new String(it.key(), StandardCharsets.UTF_8) + "=" + new String(it.value(), StandardCharsets.UTF_8));
      }
    }
    return out;
  }

  private void put(Space space, String key, String value) {
    try (OrderedStore.Batch batch = store.newBatch()) {
      batch.put(space, bytes(key), bytes(value));
      store.commit(batch, false);
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
