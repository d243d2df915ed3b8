package io.futureq.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.config.StorageSettings;
import io.futureq.storage.OrderedStore.Space;
import io.futureq.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Closing the store while another thread still reads it (a shutdown racing a group's read) must
 * neither abort the JVM nor pull RocksDB out from under the reader: the close waits for open views,
 * and calls after it fail with a StorageException.
 */
class RocksStoreCloseTest {
  @TempDir
  Path dir;

  @Test
  void closeWaitsForOpenViewsAndLaterCallsFailCleanly() throws Exception {
    RocksStore store = RocksStore.open(dir, StorageSettings.defaults(dir));
    byte[] key = "k".getBytes();
    try (OrderedStore.Batch batch = store.newBatch()) {
      batch.put(Space.META, key, "v".getBytes());
      store.commit(batch, true);
    }
    OrderedStore.View view = store.view();
    CompletableFuture<Void> closing = CompletableFuture.runAsync(store::close);
    Await.holdsFor("the store not closed under an open view", Duration.ofMillis(300), () -> !closing.isDone());
    assertArrayEquals("v".getBytes(), view.get(Space.META, key), "the open view still reads");
    assertThrows(StorageException.class, () -> store.get(Space.META, key), "no new call once closing");
    view.close();
    closing.get(10, TimeUnit.SECONDS);

    StorageException closed = assertThrows(StorageException.class, store::view);
    assertTrue(closed.getMessage().contains("closed"), closed.getMessage());
    assertThrows(StorageException.class, () -> {
      try (OrderedStore.Batch batch = store.newBatch()) {
        batch.put(Space.META, key, "w".getBytes());
        store.commit(batch, true);
      }
    });
  }
}
