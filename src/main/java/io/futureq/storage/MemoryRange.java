package io.futureq.storage;

import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * A {@link OrderedStore.RangeIterator} over one {@link MemoryStore} space as a view at {@code seq}
 * sees it. The skip list's iterator is weakly consistent: keys the writer adds or trims meanwhile
 * may or may not show up, and each key's chain is read at {@code seq}, so neither changes what the
 * view sees.
 */
final class MemoryRange implements OrderedStore.RangeIterator {
  private final Iterator<Map.Entry<byte[], Version>> entries;
  private final long seq;
  private byte[] key;
  private byte[] value;

  MemoryRange(ConcurrentSkipListMap<byte[], Version> map, long seq, byte[] from, byte[] to) {
    NavigableMap<byte[], Version> range;
    if (to == null) {
      range = map.tailMap(from, true);
    } else if (Arrays.compareUnsigned(from, to) < 0) {
      range = map.subMap(from, true, to, false);
    } else {
      range = new ConcurrentSkipListMap<>(); // an empty range, where RocksDB simply finds nothing
    }
    this.entries = range.entrySet().iterator();
    this.seq = seq;
    next();
  }

  @Override
  public boolean valid() {
    return key != null;
  }

  @Override
  public byte[] key() {
    return key.clone();
  }

  @Override
  public byte[] value() {
    return value.clone();
  }

  @Override
  public void next() {
    key = null;
    value = null;
    while (entries.hasNext()) {
      Map.Entry<byte[], Version> e = entries.next();
      byte[] seen = e.getValue().valueAt(seq);
      if (seen != null) {
        key = e.getKey();
        value = seen;
        return;
      }
    }
  }

  @Override
  public void close() {}
}
