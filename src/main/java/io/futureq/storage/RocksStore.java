package io.futureq.storage;

import io.futureq.config.StorageSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.Checkpoint;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;
import org.rocksdb.Snapshot;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link OrderedStore} on RocksDB: one column family per {@link OrderedStore.Space}. */
public final class RocksStore implements OrderedStore {
  private static final Logger LOG = LoggerFactory.getLogger(RocksStore.class);
  /** Longest {@link #close} waits for calls and views still using the store. */
  static final Duration CLOSE_WAIT = Duration.ofSeconds(10);
  static {
    RocksDB.loadLibrary();
  }

  private final Path dir;
  private final RocksDB db;
  private final DBOptions dbOptions;
  private final LRUCache cache;
  private final List<ColumnFamilyOptions> cfOptions = new ArrayList<>();
  private final Map<Space, ColumnFamilyHandle> handles = new EnumMap<>(Space.class);
  private final List<ColumnFamilyHandle> allHandles = new ArrayList<>();
  private final WriteOptions syncWrite = new WriteOptions().setSync(true);
  private final WriteOptions asyncWrite = new WriteOptions().setSync(false);
  private final StoreGate gate;

  private RocksStore(Path dir, StorageSettings settings) throws RocksDBException {
    this.dir = dir;
    this.gate = new StoreGate(dir);
    this.cache = new LRUCache(settings.blockCacheBytes());
    this.dbOptions = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true)
        .setMaxBackgroundJobs(2).setBytesPerSync(1 << 20);
    List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
    for (byte[] family : CheckpointRestore.FAMILIES) {
      descriptors.add(new ColumnFamilyDescriptor(family, options(settings)));
    }
    try {
      this.db = RocksDB.open(dbOptions, dir.toString(), descriptors, allHandles);
    } catch (RocksDBException e) {
      cfOptions.forEach(ColumnFamilyOptions::close);
      dbOptions.close();
      cache.close();
      syncWrite.close();
      asyncWrite.close();
      throw e;
    }
    for (int i = 0; i < CheckpointRestore.SPACES.size(); i++) {
      handles.put(CheckpointRestore.SPACES.get(i), allHandles.get(i));
    }
  }

  /**
   * Opens (creating if needed) the store in {@code dir}.
   *
   * @throws StorageException naming the directory when it cannot be opened (locked, corrupt, unreadable)
   */
  public static RocksStore open(Path dir, StorageSettings settings) {
    try {
      Files.createDirectories(dir);
      return new RocksStore(dir, settings);
    } catch (Exception e) {
      throw new StorageException("cannot open RocksDB store in " + dir.toAbsolutePath() + ": " + e.getMessage(), e);
    }
  }

  private ColumnFamilyOptions options(StorageSettings settings) {
    BlockBasedTableConfig table = new BlockBasedTableConfig().setBlockCache(cache)
        .setFilterPolicy(new BloomFilter(10, false));
    ColumnFamilyOptions options = new ColumnFamilyOptions().setTableFormatConfig(table)
        .setWriteBufferSize(settings.writeBufferBytes())
        .setMaxWriteBufferNumber(settings.maxWriteBuffers())
        .setCompressionType(settings.compress() ? CompressionType.LZ4_COMPRESSION : CompressionType.NO_COMPRESSION);
    cfOptions.add(options);
    return options;
  }

  public Path directory() {
    return dir;
  }

  /** A batch names column families, so it holds the gate until it is closed, as a view does. */
  @Override
  public Batch newBatch() {
    gate.enter();
    try {
      return new RocksBatch();
    } catch (RuntimeException e) {
      gate.exit();
      throw e;
    }
  }

  @Override
  public void commit(Batch batch, boolean sync) {
    gate.enter();
    try {
      db.write(sync ? syncWrite : asyncWrite, ((RocksBatch) batch).batch);
    } catch (RocksDBException e) {
      throw new StorageException("write to " + dir + " failed: " + e.getMessage(), e);
    } finally {
      gate.exit();
    }
  }

  /** Properties whose values are summed over the column families, and those that are the database's own. */
  private static final List<String> SUMMED = List.of("rocksdb.estimate-live-data-size",
      "rocksdb.total-sst-files-size", "rocksdb.cur-size-all-mem-tables", "rocksdb.estimate-pending-compaction-bytes");
  private static final List<String> DATABASE = List.of("rocksdb.num-running-compactions", "rocksdb.is-write-stopped",
      "rocksdb.actual-delayed-write-rate");

  @Override
  public Map<String, Long> engineStats() {
    Map<String, Long> stats = new HashMap<>();
    gate.enter();
    try {
      for (String property : SUMMED) {
        long sum = 0;
        for (ColumnFamilyHandle handle : handles.values()) {
          sum += db.getLongProperty(handle, property);
        }
        stats.put(property, sum);
      }
      for (String property : DATABASE) {
        stats.put(property, db.getLongProperty(property));
      }
    } catch (RocksDBException e) {
      throw new StorageException("reading the statistics of " + dir + " failed: " + e.getMessage(), e);
    } finally {
      gate.exit();
    }
    return stats;
  }

  @Override
  public byte[] get(Space space, byte[] key) {
    gate.enter();
    try {
      return db.get(handles.get(space), key);
    } catch (RocksDBException e) {
      throw new StorageException("read from " + dir + " failed: " + e.getMessage(), e);
    } finally {
      gate.exit();
    }
  }

  /** A view holds the gate until it is closed: the store cannot close under its snapshot. */
  @Override
  public View view() {
    gate.enter();
    try {
      return new RocksView();
    } catch (RuntimeException e) {
      gate.exit();
      throw e;
    }
  }

  @Override
  public void checkpoint(Path target) {
    gate.enter();
    try (Checkpoint checkpoint = Checkpoint.create(db)) {
      checkpoint.createCheckpoint(target.toString());
    } catch (RocksDBException e) {
      throw new StorageException("checkpoint of " + dir + " into " + target + " failed: " + e.getMessage(), e);
    } finally {
      gate.exit();
    }
  }

  /** See {@link OrderedStore#restoreFrom}; {@link CheckpointRestore} says how, in bounded batches. */
  @Override
  public void restoreFrom(Path checkpoint) {
    restoreFrom(checkpoint, CheckpointRestore.CHUNK_BYTES);
  }

  /** As {@link #restoreFrom(Path)}, writing at most {@code chunkBytes} per batch (tests use small ones). */
  void restoreFrom(Path checkpoint, long chunkBytes) {
    gate.enter();
    try {
      CheckpointRestore.restore(db, handles, checkpoint, syncWrite, chunkBytes);
    } finally {
      gate.exit();
    }
  }

  /**
   * Waits (up to {@link #CLOSE_WAIT}) for calls and views still inside, then closes RocksDB. If some
   * never leave, RocksDB is left open (its memory leaks until the process ends) rather than closed
   * under them, which would abort the JVM.
   */
  @Override
  public synchronized void close() {
    if (!db.isOwningHandle()) {
      return;
    }
    if (!gate.close(CLOSE_WAIT)) {
      LOG.error("{} calls or views still use the store in {} after {}; it is left open rather than closed under "
          + "them", gate.inside(), dir, CLOSE_WAIT);
      return;
    }
    try {
      db.syncWal();
    } catch (RocksDBException e) {
      throw new StorageException("final WAL sync of " + dir + " failed: " + e.getMessage(), e);
    } finally {
      allHandles.forEach(ColumnFamilyHandle::close);
      db.close();
      cfOptions.forEach(ColumnFamilyOptions::close);
      dbOptions.close();
      cache.close();
      syncWrite.close();
      asyncWrite.close();
    }
  }

  private final class RocksBatch implements Batch {
    private final WriteBatch batch = new WriteBatch();
    private boolean closed;

    @Override
    public void put(Space space, byte[] key, byte[] value) {
      try {
        batch.put(handles.get(space), key, value);
      } catch (RocksDBException e) {
        throw new StorageException("batch put failed: " + e.getMessage(), e);
      }
    }

    @Override
    public void delete(Space space, byte[] key) {
      try {
        batch.delete(handles.get(space), key);
      } catch (RocksDBException e) {
        throw new StorageException("batch delete failed: " + e.getMessage(), e);
      }
    }

    @Override
    public void close() {
      if (closed) {
        return;
      }
      closed = true;
      batch.close();
      gate.exit();
    }
  }

  private final class RocksView implements View {
    private final Snapshot snapshot = db.getSnapshot();
    private final ReadOptions readOptions = new ReadOptions().setSnapshot(snapshot);
    private boolean closed;

    @Override
    public byte[] get(Space space, byte[] key) {
      try {
        return db.get(handles.get(space), readOptions, key);
      } catch (RocksDBException e) {
        throw new StorageException("read from " + dir + " failed: " + e.getMessage(), e);
      }
    }

    @Override
    public RangeIterator range(Space space, byte[] from, byte[] to) {
      return new RocksRange(handles.get(space), snapshot, from, to);
    }

    @Override
    public void close() {
      if (closed) {
        return;
      }
      closed = true;
      readOptions.close();
      db.releaseSnapshot(snapshot);
      gate.exit();
    }
  }

  private final class RocksRange implements RangeIterator {
    private final ReadOptions options;
    private final Slice upper;
    private final RocksIterator it;

    RocksRange(ColumnFamilyHandle handle, Snapshot snapshot, byte[] from, byte[] to) {
      options = new ReadOptions().setSnapshot(snapshot);
      upper = to == null ? null : new Slice(to);
      if (upper != null) {
        options.setIterateUpperBound(upper);
      }
      it = db.newIterator(handle, options);
      it.seek(from);
    }

    @Override
    public boolean valid() {
      return it.isValid();
    }

    @Override
    public byte[] key() {
      return it.key();
    }

    @Override
    public byte[] value() {
      return it.value();
    }

    @Override
    public void next() {
      it.next();
    }

    @Override
    public void close() {
      it.close();
      options.close();
      if (upper != null) {
        upper.close();
      }
    }
  }
}
