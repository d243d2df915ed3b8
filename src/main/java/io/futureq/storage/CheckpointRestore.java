package io.futureq.storage;

import io.futureq.storage.OrderedStore.Space;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * Makes a live {@link RocksStore} equal to a checkpoint, in bounded batches: first a range delete
 * over everything each space holds, then the checkpoint's entries a few MiB at a time, and the META
 * space (applied index, event ids) last.
 *
 * <p>Why batches: one batch of the whole checkpoint needs memory for the store's live data, and a
 * follower with GiBs could not catch up. Why not swap directories: the store is shared (group
 * readers, views, admin), and reopening RocksDB under them would invalidate their handles.
 *
 * <p>What it costs: readers may see a mix of the old and the new content while it runs (entities
 * hosted on the node start over once it is done). Crash safety: META is empty from the first batch
 * until the last, so a store restarted after an interrupted restore has applied nothing, and the
 * Raft state machine restores it again from the same snapshot.
 */
final class CheckpointRestore {
  /** Most bytes of keys and values written per batch. */
  static final long CHUNK_BYTES = 4L << 20;

  private CheckpointRestore() {}

  /** The column families of a store, in the order {@link RocksStore} opens them. */
  static final List<byte[]> FAMILIES = List.of(RocksDB.DEFAULT_COLUMN_FAMILY, "messages".getBytes(),
      "index".getBytes());
  static final List<Space> SPACES = List.of(Space.META, Space.MESSAGES, Space.INDEX);

  /**
   * Replaces everything in {@code db} with the content of checkpoint {@code dir}.
   *
   * @throws StorageException naming {@code dir} if it is not a readable checkpoint (then nothing
   *     changed) or if writing failed (then META is empty: restore again)
   */
  static void restore(RocksDB db, Map<Space, ColumnFamilyHandle> handles, Path dir, WriteOptions sync,
      long chunkBytes) {
    if (!Files.isDirectory(dir)) {
      throw new StorageException("cannot restore from " + dir + ": no such directory", null);
    }
    List<ColumnFamilyHandle> sourceHandles = new ArrayList<>();
    try (ColumnFamilyOptions cfOptions = new ColumnFamilyOptions(); DBOptions options = new DBOptions()) {
      List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
      FAMILIES.forEach(name -> descriptors.add(new ColumnFamilyDescriptor(name, cfOptions)));
      try (RocksDB source = RocksDB.openReadOnly(options, dir.toString(), descriptors, sourceHandles)) {
        try (WriteBatch clear = new WriteBatch()) {
          for (Space space : SPACES) {
            clear(db, handles.get(space), clear);
          }
          db.write(sync, clear);
        }
        // META last: until it is written the store has applied nothing.
        for (int i : new int[] {1, 2, 0}) {
          copy(db, source, sourceHandles.get(i), handles.get(SPACES.get(i)), sync, chunkBytes);
        }
      } finally {
        sourceHandles.forEach(ColumnFamilyHandle::close);
      }
    } catch (RocksDBException | RuntimeException e) {
      throw new StorageException("cannot restore from checkpoint " + dir + ": " + e.getMessage(), e);
    }
  }

  private static void clear(RocksDB db, ColumnFamilyHandle handle, WriteBatch batch) throws RocksDBException {
    try (RocksIterator it = db.newIterator(handle)) {
      it.seekToLast();
      if (it.isValid()) {
        byte[] last = it.key();
        // The end is exclusive: the last key plus a zero byte is the smallest key after it.
        batch.deleteRange(handle, new byte[0], Arrays.copyOf(last, last.length + 1));
      }
    }
  }

  private static void copy(RocksDB db, RocksDB source, ColumnFamilyHandle from, ColumnFamilyHandle to,
      WriteOptions sync, long chunkBytes) throws RocksDBException {
    try (RocksIterator it = source.newIterator(from)) {
      WriteBatch batch = new WriteBatch();
      try {
        long bytes = 0;
        for (it.seekToFirst(); it.isValid(); it.next()) {
          byte[] key = it.key();
          byte[] value = it.value();
          batch.put(to, key, value);
          bytes += key.length + value.length;
          if (bytes >= chunkBytes) {
            db.write(sync, batch);
            batch.close();
            batch = new WriteBatch();
            bytes = 0;
          }
        }
        db.write(sync, batch);
      } finally {
        batch.close();
      }
    }
  }
}
