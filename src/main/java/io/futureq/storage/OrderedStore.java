package io.futureq.storage;

import java.nio.file.Path;
import java.util.Map;

/**
 * An ordered key-value store split into a few key spaces, written in atomic batches.
 *
 * <p>Contract: keys compare as unsigned bytes. {@link #commit} applies a batch atomically: after a
 * failed commit nothing of the batch is visible. Reads may run on any thread, concurrently with one
 * writer; a {@link View} sees one consistent point in time. Callers must close every view and batch.
 * Values passed in and handed out are copies: callers may reuse or change their arrays.
 *
 * <p>Implementations: {@link RocksStore} (durable) and {@link MemoryStore} (the heap only, no
 * checkpoints), chosen by {@code futureq.storage.engine}; {@code OrderedStoreContractTest} holds
 * both to this contract.
 */
public interface OrderedStore extends AutoCloseable {

  /** The key spaces; each has its own ordering and tuning. */
  enum Space {
    /** Message bodies under 24-byte {@link StorageKeys} keys. */
    MESSAGES,
    /** Secondary keys: message key, TTL, group registry, acks, topic metadata. */
    INDEX,
    /** Broker-wide bookkeeping such as the applied log index. */
    META
  }

  /** A write batch under construction; nothing is visible until {@link OrderedStore#commit}. */
  interface Batch extends AutoCloseable {
    void put(Space space, byte[] key, byte[] value);

    void delete(Space space, byte[] key);

    @Override
    void close();
  }

  /** A forward iterator over one key range; the current entry is valid until {@link #next()}. */
  interface RangeIterator extends AutoCloseable {
    boolean valid();

    byte[] key();

    byte[] value();

    void next();

    @Override
    void close();
  }

  /** A consistent read-only snapshot. */
  interface View extends AutoCloseable {
    byte[] get(Space space, byte[] key);

    /** Entries with {@code from <= key < to}; {@code to} may be null for "to the end". */
    RangeIterator range(Space space, byte[] from, byte[] to);

    @Override
    void close();
  }

  Batch newBatch();

  /**
   * Writes the batch atomically.
   *
   * @param sync when true, returns only after the write is on stable storage (fsync); a store
   *     without stable storage ignores it
   * @throws StorageException if the write failed; then nothing of the batch is visible
   */
  void commit(Batch batch, boolean sync);

  /** Reads the latest committed value, or null. */
  byte[] get(Space space, byte[] key);

  /** A snapshot of the latest committed state. */
  View view();

  /**
   * Writes a consistent copy of the whole store into {@code dir}, which must not exist.
   *
   * @throws StorageException if it fails, or if this store has no checkpoints ({@link MemoryStore})
   */
  void checkpoint(Path dir);

  /**
   * Replaces the whole content of every space with that of a {@link #checkpoint} in {@code dir}, in
   * bounded batches (memory does not grow with the store): readers may see a mix while it runs; open
   * views keep their old snapshot. The META space is empty from the start until the end, so after a
   * crash or failure midway the store has applied nothing and is restored again. A Raft follower
   * uses it to install a snapshot sent by its leader.
   *
   * @throws StorageException naming {@code dir} if it cannot be read (then nothing changed), if
   *     writing failed (then META is empty), or if this store has no checkpoints
   */
  void restoreFrom(Path dir);

  @Override
  void close();

  /**
   * The engine's own figures for metrics, by RocksDB property name, summed over the key spaces (sizes, compaction,
   * stalls); empty for an engine without them. Safe from any thread; may throw while the store closes.
   */
  default Map<String, Long> engineStats() {
    return Map.of();
  }
}
