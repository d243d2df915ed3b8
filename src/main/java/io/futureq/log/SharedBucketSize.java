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
  /**
   * The log's fixed size once committed (0: not known here yet), so that a store batch is admitted without a read of
   * the store: one read per request was most of what admitting cost.
   */
  private long fixedMs;
  private long fixedInEntry;

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
    long fixed = fixedMs != 0 ? fixedMs : fixedInEntry != 0 ? fixedInEntry : read(ctx);
    if (fixed == 0) {
      ctx.put(Space.META, KEY, ByteBuffer.allocate(Long.BYTES).putLong(named).array());
      fixedInEntry = named;
    } else if (fixed != named) {
      throw new IllegalArgumentException("published through a node whose futureq.topic.bucket-size is " + named
          + "ms, but the cluster's is " + fixed + "ms: every node must use the same");
    }
  }

  /** The size the store (with this entry's changes) says is fixed, or 0; remembered for the entry. */
  private long read(ApplyContext ctx) {
    byte[] fixed = ctx.get(Space.META, KEY);
    fixedInEntry = fixed == null ? 0 : ByteBuffer.wrap(fixed).getLong();
    return fixedInEntry;
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
    if (fixedMs == 0) {
      fixedMs = fixedInEntry;
    }
    fixedInEntry = 0;
  }

  void abandoned() {
    agreedInEntry = false;
    fixedInEntry = 0;
  }

  /** The store was replaced: check again. */
  void forget() {
    agreed = false;
    agreedInEntry = false;
    fixedMs = 0;
    fixedInEntry = 0;
  }
}
