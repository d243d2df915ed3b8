package io.futureq.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.config.StorageSettings;
import io.futureq.storage.OrderedStore.Space;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What only RocksDB does (durability, the directory lock, checkpoints); what every engine does is
 * {@link OrderedStoreContractTest}.
 */
class RocksStoreTest {
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
  void shouldKeepItsState() {
    put(Space.MESSAGES, "m", "body");
    put(Space.META, "applied", "7");
    store.close();

    store = RocksStore.open(dir.resolve("data"), StorageSettings.defaults(dir.resolve("data")));

    assertArrayEquals(bytes("body"), store.get(Space.MESSAGES, bytes("m")));
    assertArrayEquals(bytes("7"), store.get(Space.META, bytes("applied")));
  }

  @Test
  void closingTwiceIsHarmless() {
    store.close();
    store.close();
    store = RocksStore.open(dir.resolve("data"), StorageSettings.defaults(dir.resolve("data")));
  }

  @Test
  void openingADirectoryInUseFailsNamingIt() {
    Path data = dir.resolve("data");

    StorageException e = assertThrows(StorageException.class,
        () -> RocksStore.open(data, StorageSettings.defaults(data)).close());

    assertTrue(e.getMessage().contains(data.toAbsolutePath().toString()), e.getMessage());
  }

  @Test
  void checkpointIsAnOpenableCopy() {
    put(Space.INDEX, "k", "v");
    Path copy = dir.resolve("copy");

    store.checkpoint(copy);
    put(Space.INDEX, "later", "v");

    try (RocksStore opened = RocksStore.open(copy, StorageSettings.defaults(copy))) {
      assertArrayEquals(bytes("v"), opened.get(Space.INDEX, bytes("k")));
      assertNull(opened.get(Space.INDEX, bytes("later")));
    }
  }

  private void put(Space space, String key, String value) {
    try (OrderedStore.Batch batch = store.newBatch()) {
      batch.put(space, bytes(key), bytes(value));
      store.commit(batch, true);
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
