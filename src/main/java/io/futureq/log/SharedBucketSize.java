package io.futureq.log;

import io.futureq.log.proto.StoreBatch;
import io.futureq.storage.OrderedStore.Space;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The bucket size as replicated state. Storage keys are computed from it on every replica, so
 * replicas that disagree store the same message under different keys, and every delete, cancel or
 * expiry decided on one is a no-op on the others. The first store batch applied fixes it for the
 * log; a batch from a node with another size is refused alike on every replica, and a replica whose
 * own size differs from the fixed one stops applying rather than diverge.
 */
final class SharedBucketSize {
  private static final byte[] KEY = "replicated-bucket-ms".getBytes(StandardCharsets.UTF_8);

  private final long localMs;
  /** The fixed size is known to equal ours, as committed: it never changes, so no more checks. */
  private boolean agreed;
  private boolean agreedInEntry;

  SharedBucketSize(long localMs) {
    this.localMs = localMs;
  }

  /**
   * Fixes the log's bucket size with the first batch that names one, and refuses a batch that names
   * another. Deterministic: depends only on the log.
   *
   * @throws IllegalArgumentException for a batch published through a node with another bucket size
   */
  void admit(ApplyContext ctx, StoreBatch batch) {
    long named = batch.getBucketMs();
    if (named == 0) {
      return; // written before bucket sizes travelled with batches
    }
    byte[] fixed = ctx.get(Space.META, KEY);
    if (fixed == null) {
      ctx.put(Space.META, KEY, ByteBuffer.allocate(Long.BYTES).putLong(named).array());
    } else if (ByteBuffer.wrap(fixed).getLong() != named) {
      throw new IllegalArgumentException("published through a node whose futureq.topic.bucket-size is " + named
          + "ms, but the cluster's is " + ByteBuffer.wrap(fixed).getLong() + "ms: every node must use the same");
    }
  }

  /**
   * Checks this replica's own bucket size against the log's, after an entry. Not deterministic, by
   * design: only the replica that disagrees stops.
   *
   * @throws IllegalStateException if they differ: this replica must not apply the log
   */
  void verify(ApplyContext ctx, long index) {
    if (agreed) {
      return;
    }
    byte[] fixed = ctx.get(Space.META, KEY);
    if (fixed == null) {
      return;
    }
    long clusterMs = ByteBuffer.wrap(fixed).getLong();
    if (clusterMs != localMs) {
      throw new IllegalStateException("this node's futureq.topic.bucket-size is " + localMs + "ms but the log "
          + "(at index " + index + ") uses " + clusterMs + "ms: this replica stops applying rather than store "
          + "messages under other keys; start this node with futureq.topic.bucket-size = " + clusterMs + "ms");
    }
    agreedInEntry = true;
  }

  void committed() {
    agreed |= agreedInEntry;
    agreedInEntry = false;
  }

  void abandoned() {
    agreedInEntry = false;
  }

  /** The store was replaced: check again. */
  void forget() {
    agreed = false;
    agreedInEntry = false;
  }
}
