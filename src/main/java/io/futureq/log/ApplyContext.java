package io.futureq.log;

import io.futureq.storage.OrderedStore;
import io.futureq.storage.OrderedStore.Space;
import io.futureq.storage.StorageKeys;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One log entry's writes before commit: a batch plus an overlay, so later commands of the same
 * entry read what earlier ones wrote.
 */
final class ApplyContext implements AutoCloseable {
  private static final byte[] TOMBSTONE = new byte[0];

  private final OrderedStore store;
  private final OrderedStore.Batch batch;
  private final Map<Space, TreeMap<byte[], byte[]>> overlay = new EnumMap<>(Space.class);

  ApplyContext(OrderedStore store) {
    this.store = store;
    this.batch = store.newBatch();
    for (Space space : Space.values()) {
      overlay.put(space, new TreeMap<>(Arrays::compareUnsigned));
    }
  }

  OrderedStore.Batch batch() {
    return batch;
  }

  byte[] get(Space space, byte[] key) {
    byte[] pending = overlay.get(space).get(key);
    if (pending != null) {
      return pending == TOMBSTONE ? null : pending;
    }
    return store.get(space, key);
  }

  void put(Space space, byte[] key, byte[] value) {
    overlay.get(space).put(key, value);
    batch.put(space, key, value);
  }

  void delete(Space space, byte[] key) {
    overlay.get(space).put(key, TOMBSTONE);
    batch.delete(space, key);
  }

  /** Keys starting with {@code prefix}, as committed and then changed by this entry. */
  List<byte[]> keysWithPrefix(Space space, byte[] prefix) {
    return keysInRange(space, prefix, StorageKeys.prefixEnd(prefix));
  }

  /** Keys with {@code from <= key < end} ({@code end} null: to the end), as committed and then changed here. */
  List<byte[]> keysInRange(Space space, byte[] from, byte[] end) {
    TreeMap<byte[], byte[]> merged = new TreeMap<>(Arrays::compareUnsigned);
    try (OrderedStore.View view = store.view(); OrderedStore.RangeIterator it = view.range(space, from, end)) {
      for (; it.valid(); it.next()) {
        merged.put(it.key(), it.value());
      }
    }
    Map<byte[], byte[]> changes = end == null ? overlay.get(space).tailMap(from)
        : overlay.get(space).subMap(from, end);
    merged.putAll(changes);
    List<byte[]> keys = new ArrayList<>();
    merged.forEach((k, v) -> {
      if (v != TOMBSTONE) {
        keys.add(k);
      }
    });
    return keys;
  }

  @Override
  public void close() {
    batch.close();
  }
}
