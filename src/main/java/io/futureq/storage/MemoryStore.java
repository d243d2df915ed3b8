package io.futureq.storage;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * {@link OrderedStore} in the heap, for {@code futureq.storage.engine = memory}: the same ordering,
 * batches and snapshots as {@link RocksStore}, and nothing survives {@link #close()}.
 *
 * <p>Each space is a skip list from key to a {@link Version} chain, newest first. A commit stamps
 * its writes with the next sequence number and only then publishes that number, so a view, which
 * reads the newest version at or below the number it took when opened, sees a batch whole or not
 * at all, however the writer interleaves. Versions no open view can reach any more are dropped by
 * the writer after each commit ({@link Superseded}), so memory follows the live data, not the
 * history.
 */
public final class MemoryStore implements OrderedStore {
  private final Map<Space, ConcurrentSkipListMap<byte[], Version>> spaces = new EnumMap<>(Space.class);
  private final OpenViews views = new OpenViews();
  private final ArrayDeque<Superseded> superseded = new ArrayDeque<>();
  private final Object writer = new Object();
  private volatile long committed;
  private volatile boolean closed;

  private MemoryStore() {
    for (Space space : Space.values()) {
      spaces.put(space, new ConcurrentSkipListMap<>(Arrays::compareUnsigned));
    }
  }

  /** An empty store. */
  public static MemoryStore create() {
    return new MemoryStore();
  }

  @Override
  public Batch newBatch() {
    return new MemoryBatch();
  }

  /** {@code sync} is ignored: there is no stable storage to wait for. */
  @Override
  public void commit(Batch batch, boolean sync) {
    List<Write> writes = ((MemoryBatch) batch).writes;
    synchronized (writer) {
      requireOpen();
      long seq = committed + 1;
      try {
        writes.forEach(w -> install(w, seq));
      } catch (RuntimeException | Error e) {
        writes.forEach(w -> uninstall(w, seq));
        throw new StorageException("in-memory commit of " + writes.size() + " writes failed: " + e, e);
      }
      committed = seq;
      dropUnreachable();
    }
  }

  @Override
  public byte[] get(Space space, byte[] key) {
    try (View view = view()) {
      return view.get(space, key);
    }
  }

  @Override
  public View view() {
    requireOpen();
    return new MemoryView(views.open(() -> committed));
  }

  @Override
  public void checkpoint(Path dir) {
    throw noCheckpoints("write a checkpoint into " + dir);
  }

  @Override
  public void restoreFrom(Path dir) {
    throw noCheckpoints("restore from " + dir);
  }

  /** Frees every entry; the store answers no further reads or writes. Closing twice is harmless. */
  @Override
  public void close() {
    synchronized (writer) {
      closed = true;
      spaces.values().forEach(Map::clear);
      superseded.clear();
    }
  }

  /** Versions held in {@code space}, live and superseded; tests check that old ones are released. */
  long versions(Space space) {
    return spaces.get(space).values().stream().mapToLong(Version::length).sum();
  }

  private void install(Write w, long seq) {
    ConcurrentSkipListMap<byte[], Version> map = spaces.get(w.space());
    Version head = map.get(w.key());
    // A second write of a key in one batch replaces the first: both carry the same sequence number.
    Version older = head != null && head.seq() == seq ? head.older() : head;
    if (older == null && w.value() == null) {
      map.remove(w.key());
      return;
    }
    map.put(w.key(), new Version(seq, w.value(), older));
    if (older != null || w.value() == null) {
      superseded.add(new Superseded(seq, map, w.key()));
    }
  }

  /** Takes back what {@link #install} did, if anything: it may be the very write that failed. */
  private void uninstall(Write w, long seq) {
    ConcurrentSkipListMap<byte[], Version> map = spaces.get(w.space());
    Version head = map == null ? null : map.get(w.key());
    if (head != null && head.seq() == seq) {
      if (head.older() == null) {
        map.remove(w.key());
      } else {
        map.put(w.key(), head.older());
      }
    }
  }

  /** Trims the chains written at or before the oldest open view: nobody can read below that. */
  private void dropUnreachable() {
    long oldest = views.oldest(committed);
    while (!superseded.isEmpty() && superseded.peek().seq() <= oldest) {
      Superseded s = superseded.poll();
      Version head = s.map().get(s.key());
      if (head != null) {
        Version trimmed = head.trimmedAt(oldest);
        if (trimmed == null) {
          s.map().remove(s.key());
        } else if (trimmed != head) {
          s.map().put(s.key(), trimmed);
        }
      }
    }
  }

  private void requireOpen() {
    if (closed) {
      throw new StorageException("the in-memory store is closed", null);
    }
  }

  private static StorageException noCheckpoints(String what) {
    return new StorageException("cannot " + what + ": the in-memory store (futureq.storage.engine = memory) has no "
        + "checkpoints; only a clustered broker uses them, and clustered mode requires engine rocksdb", null);
  }

  /** One put ({@code value} set) or delete ({@code value} null) of a batch. */
  private record Write(Space space, byte[] key, byte[] value) {}

  /** A key whose chain got a version at {@code seq} that hides an older one, or a deletion. */
  private record Superseded(long seq, ConcurrentSkipListMap<byte[], Version> map, byte[] key) {}

  private static final class MemoryBatch implements Batch {
    private final List<Write> writes = new ArrayList<>();

    @Override
    public void put(Space space, byte[] key, byte[] value) {
      writes.add(new Write(space, key.clone(), value.clone()));
    }

    @Override
    public void delete(Space space, byte[] key) {
      writes.add(new Write(space, key.clone(), null));
    }

    @Override
    public void close() {
      writes.clear();
    }
  }

  private final class MemoryView implements View {
    private final long seq;
    private boolean released;

    MemoryView(long seq) {
      this.seq = seq;
    }

    @Override
    public byte[] get(Space space, byte[] key) {
      Version head = spaces.get(space).get(key);
      byte[] value = head == null ? null : head.valueAt(seq);
      return value == null ? null : value.clone();
    }

    @Override
    public RangeIterator range(Space space, byte[] from, byte[] to) {
      return new MemoryRange(spaces.get(space), seq, from, to);
    }

    @Override
    public void close() {
      if (!released) {
        released = true;
        views.close(seq);
      }
    }
  }
}
