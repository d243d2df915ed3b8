package io.futureq.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.config.StorageEngine;
import io.futureq.config.StorageSettings;
import io.futureq.storage.OrderedStore.Space;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The {@link OrderedStore} contract, asserted the same way on every engine, so that the in-memory
 * store behaves as RocksDB does: unsigned key order, range bounds, whole batches, point-in-time views.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(StorageEngine.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OrderedStoreContractTest {
  @Parameter
  StorageEngine engine;
  @TempDir
  Path dir;

  private OrderedStore store;

  @BeforeEach
  void open() {
    store = engine == StorageEngine.MEMORY ? MemoryStore.create()
        : RocksStore.open(dir.resolve("data"), StorageSettings.defaults(dir.resolve("data")));
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
  void aBatchClosedWithoutCommitLeavesNothing() {
    try (OrderedStore.Batch batch = store.newBatch()) {
      batch.put(Space.MESSAGES, bytes("m"), bytes("v"));
    }
    put(Space.INDEX, "other", "v");

    assertNull(store.get(Space.MESSAGES, bytes("m")));
    try (OrderedStore.View view = store.view()) {
      assertEquals(List.of(), keys(view, Space.MESSAGES, bytes(""), null));
    }
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
      batch.delete(Space.MESSAGES, bytes("never-written"));
      store.commit(batch, false);
    }

    assertNull(store.get(Space.MESSAGES, bytes("old")));
    assertArrayEquals(bytes("v"), store.get(Space.MESSAGES, bytes("new")));
    try (OrderedStore.View view = store.view()) {
      assertEquals(List.of("new"), keys(view, Space.MESSAGES, bytes(""), null));
    }
  }

  @Test
  void theLastWriteOfAKeyInABatchWins() {
    put(Space.INDEX, "b", "before");
    try (OrderedStore.Batch batch = store.newBatch()) {
      batch.put(Space.INDEX, bytes("a"), bytes("1"));
      batch.put(Space.INDEX, bytes("a"), bytes("2"));
      batch.delete(Space.INDEX, bytes("b"));
      batch.put(Space.INDEX, bytes("b"), bytes("after"));
      batch.put(Space.INDEX, bytes("c"), bytes("gone"));
      batch.delete(Space.INDEX, bytes("c"));
      store.commit(batch, true);
    }

    assertArrayEquals(bytes("2"), store.get(Space.INDEX, bytes("a")));
    assertArrayEquals(bytes("after"), store.get(Space.INDEX, bytes("b")));
    assertNull(store.get(Space.INDEX, bytes("c")));
    try (OrderedStore.View view = store.view()) {
      assertEquals(List.of("a", "b"), keys(view, Space.INDEX, bytes(""), null));
    }
  }

  @Test
  void writesAndReadsAreCopiesTheCallerMayReuse() {
    byte[] key = bytes("k");
    byte[] value = bytes("v1");
    try (OrderedStore.Batch batch = store.newBatch()) {
      batch.put(Space.MESSAGES, key, value);
      value[1] = '9';
      store.commit(batch, true);
    }
    store.get(Space.MESSAGES, key)[0] = 'x';
    try (OrderedStore.View view = store.view(); OrderedStore.RangeIterator it = view.range(Space.MESSAGES, key, null)) {
      it.key()[0] = 'x';
      it.value()[0] = 'x';
    }

    assertArrayEquals(bytes("v1"), store.get(Space.MESSAGES, bytes("k")));
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
  void anOpenIteratorKeepsItsSnapshotWhileKeysAreRewrittenAndDeleted() {
    for (int i = 0; i < 100; i++) {
      put(Space.MESSAGES, key(i), "v0");
    }
    List<String> seen = new ArrayList<>();
    try (OrderedStore.View view = store.view();
        OrderedStore.RangeIterator it = view.range(Space.MESSAGES, bytes(""), null)) {
      for (int round = 1; it.valid(); it.next(), round++) {
        seen.add(new String(it.key(), StandardCharsets.UTF_8) + "=" + new String(it.value(), StandardCharsets.UTF_8));
        // Between steps: rewrite every key, delete some, insert new ones before and after the cursor.
        try (OrderedStore.Batch batch = store.newBatch()) {
          for (int i = 0; i < 100; i++) {
            batch.put(Space.MESSAGES, bytes(key(i)), bytes("v" + round));
          }
          batch.delete(Space.MESSAGES, bytes(key(round % 100)));
          batch.put(Space.MESSAGES, bytes(key(round % 100) + "-new"), bytes("new"));
          store.commit(batch, false);
        }
      }
    }

    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      expected.add(key(i) + "=v0");
    }
    assertEquals(expected, seen);
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
      assertEquals(List.of(), keys(view, Space.INDEX, bytes("d"), bytes("b")));
      assertEquals(List.of(), keys(view, Space.INDEX, bytes("f"), null));
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
    byte[] farBucket = StorageKeys.message(hash, 0xff00, 1);
    try (OrderedStore.Batch batch = store.newBatch()) {
      batch.put(Space.MESSAGES, farBucket, bytes("4"));
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
    assertEquals(List.of("1", "2", "3", "4"), values);
  }

  @Test
  void bytesAbove0x7fSortAfterThoseBelow() {
    try (OrderedStore.Batch batch = store.newBatch()) {
      for (int b : new int[] {0xff, 0x80, 0x7f, 0x01}) {
        batch.put(Space.INDEX, new byte[] {(byte) b, 1}, bytes(Integer.toHexString(b)));
      }
      store.commit(batch, true);
    }

    try (OrderedStore.View view = store.view()) {
      assertEquals(List.of("1", "7f", "80", "ff"), values(view, Space.INDEX, new byte[0], null));
      assertEquals(List.of("80"), values(view, Space.INDEX, new byte[] {(byte) 0x80}, new byte[] {(byte) 0xff}));
    }
  }

  /**
   * Every batch rewrites all keys of both spaces with one generation number: a reader on another
   * thread must find one generation in each view, by range scan and by get, however the commits
   * interleave with its reads.
   */
  @Test
  void viewsOnOtherThreadsSeeEachBatchWholeWhileTheWriterCommits() throws Exception {
    int keys = 50;
    commitGeneration(0, keys);
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicInteger views = new AtomicInteger();
    ConcurrentLinkedQueue<String> broken = new ConcurrentLinkedQueue<>();
    List<Thread> readers = new ArrayList<>();
    for (int r = 0; r < 2; r++) {
      Thread reader = new Thread(() -> {
        while (writing.get() && broken.isEmpty()) {
          checkOneGeneration(keys, broken);
          views.incrementAndGet();
        }
      }, "contract-reader-" + r);
      reader.start();
      readers.add(reader);
    }
    try {
      for (int gen = 1; gen <= 1500 && broken.isEmpty(); gen++) {
        commitGeneration(gen, keys);
      }
    } finally {
      writing.set(false);
      for (Thread reader : readers) {
        reader.join(TimeUnit.SECONDS.toMillis(30));
      }
    }

    assertEquals(List.of(), List.copyOf(broken));
    assertTrue(views.get() > 0, "no reader finished a view");
  }

  private void commitGeneration(int gen, int keys) {
    try (OrderedStore.Batch batch = store.newBatch()) {
      for (int i = 0; i < keys; i++) {
        batch.put(Space.MESSAGES, bytes(key(i)), bytes(Integer.toString(gen)));
        batch.put(Space.INDEX, bytes(key(i)), bytes(Integer.toString(gen)));
      }
      // A key that exists in odd generations only: its presence must match the generation too.
      if (gen % 2 == 1) {
        batch.put(Space.MESSAGES, bytes("odd"), bytes(Integer.toString(gen)));
      } else {
        batch.delete(Space.MESSAGES, bytes("odd"));
      }
      store.commit(batch, false);
    }
  }

  private void checkOneGeneration(int keys, ConcurrentLinkedQueue<String> broken) {
    try (OrderedStore.View view = store.view()) {
      List<String> seen = new ArrayList<>();
      try (OrderedStore.RangeIterator it = view.range(Space.MESSAGES, bytes(""), null)) {
        for (; it.valid(); it.next()) {
          seen.add(new String(it.value(), StandardCharsets.UTF_8));
        }
      }
      String gen = new String(view.get(Space.INDEX, bytes(key(0))), StandardCharsets.UTF_8);
      boolean odd = Integer.parseInt(gen) % 2 == 1;
      if (seen.size() != keys + (odd ? 1 : 0) || seen.stream().anyMatch(v -> !v.equals(gen))) {
        broken.add("view at generation " + gen + " read " + seen);
      }
      byte[] last = view.get(Space.INDEX, bytes(key(keys - 1)));
      if (last == null || !new String(last, StandardCharsets.UTF_8).equals(gen)) {
        broken.add("view at generation " + gen + " got " + (last == null ? null : new String(last)) + " by get");
      }
    }
  }

  @Test
  void closingTwiceIsHarmless() {
    put(Space.META, "k", "v");
    store.close();
    store.close();
  }

  private void put(Space space, String key, String value) {
    try (OrderedStore.Batch batch = store.newBatch()) {
      batch.put(space, bytes(key), bytes(value));
      store.commit(batch, true);
    }
  }

  private static String key(int i) {
    return String.format("k%03d", i);
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

  private static List<String> values(OrderedStore.View view, Space space, byte[] from, byte[] to) {
    List<String> values = new ArrayList<>();
    try (OrderedStore.RangeIterator it = view.range(space, from, to)) {
      for (; it.valid(); it.next()) {
        values.add(new String(it.value(), StandardCharsets.UTF_8));
      }
    }
    return values;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
