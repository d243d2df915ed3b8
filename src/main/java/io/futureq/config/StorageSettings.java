package io.futureq.config;

import java.nio.file.Path;

/**
 * The storage engine, the data directory and RocksDB tuning; with {@link StorageEngine#MEMORY} the
 * directory, {@code fsync} and the RocksDB tuning are not used.
 */
public record StorageSettings(
    StorageEngine engine,
    Path dataDir,
    boolean fsync,
    long blockCacheBytes,
    long writeBufferBytes,
    int maxWriteBuffers,
    boolean compress,
    int groupCommitMaxCommands,
    int maxQueuedCommands,
    long maxQueuedBytes) {

  static StorageSettings from(SettingsReader r) {
    String p = "futureq.storage.";
    return new StorageSettings(
        StorageEngine.read(r, p + "engine"),
        Path.of(r.nonEmpty(p + "data-dir")),
        r.bool(p + "fsync"),
        r.bytesIn(p + "rocksdb.block-cache-size", 1 << 20, 1L << 40),
        r.bytesIn(p + "rocksdb.write-buffer-size", 1 << 20, 1L << 32),
        r.intIn(p + "rocksdb.max-write-buffers", 2, 64),
        r.bool(p + "rocksdb.compression"),
        r.intIn(p + "group-commit-max-commands", 1, 1_000_000),
        r.intIn(p + "max-queued-commands", 1, 10_000_000),
        r.bytesIn(p + "max-queued-bytes", 1L << 20, 1L << 40));
  }

  /** Settings for a store in {@code dir} with defaults fit for tests and tools. */
  public static StorageSettings defaults(Path dir) {
    return new StorageSettings(StorageEngine.ROCKSDB, dir, true, 32L << 20, 16L << 20, 4, true, 1024, 100_000,
        1L << 30);
  }
}
