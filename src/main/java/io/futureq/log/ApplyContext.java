package io.futureq.log;

import io.futureq.storage.OrderedStore;
import io.futureq.storage.OrderedStore.Space;
import io.futureq.storage.StorageKeys;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongPredicate;

/**
 * One log entry's writes before commit: a batch plus an overlay, so later commands of the same
 * entry read what earlier ones wrote. Only the index space is range-read, so only its overlay is
 * sorted; the others are hashed (a sorted overlay of a big entry's messages cost more than the
 * writes themselves). Writes to the message space are hashed only once the entry first reads that
 * space: most entries only store new messages and never read them back.
 */
final class ApplyContext implements AutoCloseable {
  private static final byte[] TOMBSTONE = new byte[0];

  private static final Space SORTED = Space.INDEX;

  private final OrderedStore store;
  private final OrderedStore.Batch batch;
  private final TreeMap<byte[], byte[]> sorted = new TreeMap<>(Arrays::compareUnsigned);
  private final Map<Space, HashMap<Key, byte[]>> hashed = new EnumMap<>(Space.class);
  /** Message-space writes not hashed yet, as key, value, key, value...; null once hashed. */
  private List<byte[]> unhashedMessages;

  /** A key compared by content. */
  private record Key(byte[] bytes, int hash) {
    static Key of(byte[] bytes) {
      return new Key(bytes, Arrays.hashCode(bytes));
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof Key k && k.hash == hash && Arrays.equals(k.bytes, bytes);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }

  /** @param expectedMessages new messages the entry stores: their overlay is sized once, not grown put by put */
  ApplyContext(OrderedStore store, int expectedMessages) {
    this.store = store;
    this.batch = store.newBatch();
    for (Space space : Space.values()) {
      if (space != SORTED && space != Space.MESSAGES) {
        hashed.put(space, new HashMap<>());
      }
    }
    unhashedMessages = new ArrayList<>(2 * expectedMessages + 16);
  }

  OrderedStore.Batch batch() {
    return batch;
  }

  byte[] get(Space space, byte[] key) {
    byte[] pending = space == SORTED ? sorted.get(key) : hashed(space).get(Key.of(key));
    if (pending != null) {
      return pending == TOMBSTONE ? null : pending;
    }
    return store.get(space, key);
  }

  void put(Space space, byte[] key, byte[] value) {
    remember(space, key, value);
    batch.put(space, key, value);
  }

  void delete(Space space, byte[] key) {
    remember(space, key, TOMBSTONE);
    batch.delete(space, key);
  }

  private void remember(Space space, byte[] key, byte[] value) {
    if (space == SORTED) {
      sorted.put(key, value);
    } else if (space == Space.MESSAGES && unhashedMessages != null) {
      unhashedMessages.add(key);
      unhashedMessages.add(value);
    } else {
      hashed.get(space).put(Key.of(key), value);
    }
  }

  /** The overlay of a hashed space; the message space's is built on its first use, in the order of the writes. */
  private HashMap<Key, byte[]> hashed(Space space) {
    if (space == Space.MESSAGES && unhashedMessages != null) {
      HashMap<Key, byte[]> messages = new HashMap<>(unhashedMessages.size() * 2 / 3 + 16);
      for (int i = 0; i < unhashedMessages.size(); i += 2) {
        messages.put(Key.of(unhashedMessages.get(i)), unhashedMessages.get(i + 1));
      }
      hashed.put(Space.MESSAGES, messages);
      unhashedMessages = null;
    }
    return hashed.get(space);
  }

  /** Keys starting with {@code prefix}, as committed and then changed by this entry. */
  List<byte[]> keysWithPrefix(Space space, byte[] prefix) {
    return keysInRange(space, prefix, StorageKeys.prefixEnd(prefix));
  }

  /** Keys with {@code from <= key < end} ({@code end} null: to the end), as committed and then changed here. */
  List<byte[]> keysInRange(Space space, byte[] from, byte[] end) {
    if (space != SORTED) {
      throw new IllegalArgumentException("range reads of " + space + " are not supported in an entry");
    }
    TreeMap<byte[], byte[]> merged = new TreeMap<>(Arrays::compareUnsigned);
    try (OrderedStore.View view = store.view(); OrderedStore.RangeIterator it = view.range(space, from, end)) {
      for (; it.valid(); it.next()) {
        merged.put(it.key(), it.value());
      }
    }
    Map<byte[], byte[]> changes = end == null ? sorted.tailMap(from) : sorted.subMap(from, end);
    merged.putAll(changes);
    List<byte[]> keys = new ArrayList<>();
    merged.forEach((k, v) -> {
      if (v != TOMBSTONE) {
        keys.add(k);
      }
    });
    return keys;
  }

  /**
   * The first {@code limit} message keys with {@code from <= key < end} ({@code end} null: to the end) whose event
   * id passes {@code keep}, in key order, as committed and then changed here. Rarely used (administration), so the
   * hashed overlay is walked.
   */
  List<byte[]> messageKeys(byte[] from, byte[] end, int limit, LongPredicate keep) {
    HashMap<Key, byte[]> changes = hashed(Space.MESSAGES);
    TreeSet<byte[]> found = new TreeSet<>(Arrays::compareUnsigned);
    changes.forEach((key, value) -> {
      byte[] k = key.bytes();
      if (value != TOMBSTONE && Arrays.compareUnsigned(k, from) >= 0
          && (end == null || Arrays.compareUnsigned(k, end) < 0) && keep.test(StorageKeys.eventIdOf(k))) {
        found.add(k);
      }
    });
    try (OrderedStore.View view = store.view();
        OrderedStore.RangeIterator it = view.range(Space.MESSAGES, from, end)) {
      for (int taken = 0; it.valid() && taken < limit; it.next()) {
        byte[] k = it.key();
        if (changes.get(Key.of(k)) != TOMBSTONE && keep.test(StorageKeys.eventIdOf(k))) {
          found.add(k);
          taken++;
        }
      }
    }
    List<byte[]> keys = new ArrayList<>(Math.min(limit, found.size()));
    for (byte[] k : found) {
      if (keys.size() == limit) {
        break;
      }
      keys.add(k);
    }
    return keys;
  }

  @Override
  public void close() {
    batch.close();
  }
}
