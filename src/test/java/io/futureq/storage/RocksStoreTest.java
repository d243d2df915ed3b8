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
  void batchIsInvisibleUntilCommittedThenVisibleWhole() {
    try (OrderedStore.Batch batch = store.newBatch()) {
      batch.put(Space.MESSAGES, bytes("m1"), bytes("one"));
      batch.put(Space.INDEX, bytes("i1"), bytes("two"));
      batch.put(Space.META, bytes("x"), bytes("three"));
      assertNull(store.get(Space.MESSAGES, bytes("m1")));
      assertNull(store.get(Space.INDEX, bytes("i1")));

      store.commit(batch, true);
    }

    assertArrayEquals(bytes("one"), store.get(Space.MESSAGES, bytes("m1")));
    assertArrayEquals(bytes("two"), store.get(Space.INDEX, bytes("i1")));
    assertArrayEquals(bytes("three"), store.get(Space.META, bytes("x")));
  }

  @Test
  void spacesAreSeparate() {
    put(Space.MESSAGES, "k", "message");
    put(Space.INDEX, "k", "index");

    assertArrayEquals(bytes("message"), store.get(Space.MESSAGES, bytes("k")));
    assertArrayEquals(bytes("index"), store.get(Space.INDEX, bytes("k")));
    assertNull(store.get(Space.META, bytes("k")));
  }

  @Test
  void batchDeletesAndPutsApplyTogether() {
    put(Space.MESSAGES, "old", "v");
    try (OrderedStore.Batch batch = store.newBatch()) {
      batch.delete(Space.MESSAGES, bytes("old"));
      batch.put(Space.MESSAGES, bytes("new"), bytes("v"));
      store.commit(batch, false);
    }

    assertNull(store.get(Space.MESSAGES, bytes("old")));
    assertArrayEquals(bytes("v"), store.get(Space.MESSAGES, bytes("new")));
  }

  @Test
  void viewIsASnapshotThatMissesLaterWrites() {
    put(Space.MESSAGES, "a", "1");
    try (OrderedStore.View view = store.view()) {
      put(Space.MESSAGES, "a", "2");
      put(Space.MESSAGES, "b", "new");

      assertArrayEquals(bytes("1"), view.get(Space.MESSAGES, bytes("a")));
      assertNull(view.get(Space.MESSAGES, bytes("b")));
      assertEquals(List.of("a"), keys(view, Space.MESSAGES, bytes(""), null));
    }
    try (OrderedStore.View later = store.view()) {
      assertArrayEquals(bytes("2"), later.get(Space.MESSAGES, bytes("a")));
      assertEquals(List.of("a", "b"), keys(later, Space.MESSAGES, bytes(""), null));
    }
  }

  @Test
  void viewDoesNotSeeDeletesAfterItWasTaken() {
    put(Space.INDEX, "a", "1");
    try (OrderedStore.View view = store.view()) {
      try (OrderedStore.Batch batch = store.newBatch()) {
        batch.delete(Space.INDEX, bytes("a"));
        store.commit(batch, true);
      }

      assertArrayEquals(bytes("1"), view.get(Space.INDEX, bytes("a")));
      assertNull(store.get(Space.INDEX, bytes("a")));
    }
  }

  @Test
  void rangeIncludesFromAndExcludesTo() {
    for (String k : List.of("a", "b", "c", "d", "e")) {
      put(Space.INDEX, k, k);
    }
    try (OrderedStore.View view = store.view()) {
      assertEquals(List.of("b", "c"), keys(view, Space.INDEX, bytes("b"), bytes("d")));
      assertEquals(List.of("c", "d"), keys(view, Space.INDEX, bytes("bb"), bytes("dd")));
      assertEquals(List.of(), keys(view, Space.INDEX, bytes("c"), bytes("c")));
    }
  }

  @Test
  void rangeWithNullEndRunsToTheEndOfItsSpaceOnly() {
    put(Space.INDEX, "a", "1");
    put(Space.INDEX, "y", "2");
    put(Space.INDEX, "z", "3");
    put(Space.MESSAGES, "zz", "other space");
    try (OrderedStore.View view = store.view()) {
      assertEquals(List.of("y", "z"), keys(view, Space.INDEX, bytes("b"), null));
    }
  }

  @Test
  void rangeWalksKeysInUnsignedByteOrder() {
    long hash = StorageKeys.topicHash("orders");
    byte[] low = StorageKeys.message(hash, 1, 0x7f);
    byte[] high = StorageKeys.message(hash, 1, 0x80);
    byte[] nextBucket = StorageKeys.message(hash, 0x80, 1);
    try (OrderedStore.Batch batch = store.newBatch()) {
      batch.put(Space.MESSAGES, nextBucket, bytes("3"));
      batch.put(Space.MESSAGES, high, bytes("2"));
      batch.put(Space.MESSAGES, low, bytes("1"));
      store.commit(batch, true);
    }

    List<String> values = new ArrayList<>();
    try (OrderedStore.View view = store.view();
        OrderedStore.RangeIterator it = view.range(Space.MESSAGES, StorageKeys.messageRangeStart(hash, 0),
            StorageKeys.messageRangeEnd(hash))) {
      for (; it.valid(); it.next()) {
        values.add(new String(it.value(), StandardCharsets.UTF_8));
      }
    }
    assertEquals(List.of("1", "2", "3"), values);
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

  private static List<String> keys(OrderedStore.View view, Space space, byte[] from, byte[] to) {
    List<String> keys = new ArrayList<>();
    try (OrderedStore.RangeIterator it = view.range(space, from, to)) {
      for (; it.valid(); it.next()) {
        keys.add(new String(it.key(), StandardCharsets.UTF_8));
      }
    }
    return keys;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
