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

/**
 * Builds the one batch that makes a live {@link RocksStore} equal to a checkpoint: a range delete
 * over everything each space holds, then every entry of the checkpoint.
 *
 * <p>Why a batch rather than swapping directories: the store is shared (group readers, views,
 * admin), and closing and reopening RocksDB under them would invalidate their handles; a batch
 * keeps one instance and is atomic for every reader. The cost is memory: the batch holds the whole
 * checkpoint, so installing a snapshot needs heap for the store's live data. Ingesting the
 * checkpoint's SST files would avoid that and is the path if stores grow past a few GiB.
 */
final class CheckpointRestore {
  private CheckpointRestore() {}

  /** The column families of a store, in the order {@link RocksStore} opens them. */
  static final List<byte[]> FAMILIES = List.of(RocksDB.DEFAULT_COLUMN_FAMILY, "messages".getBytes(),
      "index".getBytes());
  static final List<Space> SPACES = List.of(Space.META, Space.MESSAGES, Space.INDEX);

  /**
   * The batch that replaces everything in {@code db} with the content of checkpoint {@code dir}.
   *
   * @throws StorageException naming {@code dir} if it is not a readable checkpoint
   */
  static WriteBatch batch(RocksDB db, Map<Space, ColumnFamilyHandle> handles, Path dir) {
    if (!Files.isDirectory(dir)) {
      throw new StorageException("cannot restore from " + dir + ": no such directory", null);
    }
    List<ColumnFamilyHandle> sourceHandles = new ArrayList<>();
    WriteBatch batch = new WriteBatch();
    try (ColumnFamilyOptions cfOptions = new ColumnFamilyOptions(); DBOptions options = new DBOptions()) {
      List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
      FAMILIES.forEach(name -> descriptors.add(new ColumnFamilyDescriptor(name, cfOptions)));
      try (RocksDB source = RocksDB.openReadOnly(options, dir.toString(), descriptors, sourceHandles)) {
        for (int i = 0; i < SPACES.size(); i++) {
          ColumnFamilyHandle target = handles.get(SPACES.get(i));
          clear(db, target, batch);
          copy(source, sourceHandles.get(i), target, batch);
        }
      } finally {
        sourceHandles.forEach(ColumnFamilyHandle::close);
      }
      return batch;
    } catch (RocksDBException | RuntimeException e) {
      batch.close();
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

  private static void copy(RocksDB source, ColumnFamilyHandle from, ColumnFamilyHandle to, WriteBatch batch)
      throws RocksDBException {
    try (RocksIterator it = source.newIterator(from)) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        batch.put(to, it.key(), it.value());
      }
    }
  }
}
