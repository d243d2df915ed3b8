package io.futureq.log;

import io.futureq.storage.OrderedStore;
import io.futureq.storage.StorageException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Wraps a real store: on demand, fails every read of one key (a bad block, an I/O error), fails the next commit, or
 * holds the next commit open until released, so that appends queued meanwhile share one group commit.
 */
public final class TrapStore implements OrderedStore {
  private final OrderedStore delegate;
  private volatile byte[] failingKey;
  private volatile CountDownLatch entered;
  private volatile CountDownLatch released;
  private volatile boolean holdNext;
  private volatile String failNext;

  public TrapStore(OrderedStore delegate) {
    this.delegate = delegate;
  }

  public void failReadsOf(byte[] key) {
    failingKey = key.clone();
  }

  public void holdNextCommit() {
    released = new CountDownLatch(1);
    entered = new CountDownLatch(1);
    holdNext = true;
  }

  public void awaitHeldCommit() throws InterruptedException {
    if (!entered.await(30, TimeUnit.SECONDS)) {
      throw new AssertionError("no commit reached the trap within 30s");
    }
  }

  public void releaseCommit() {
    released.countDown();
  }

  @Override
  public Batch newBatch() {
    return delegate.newBatch();
  }

  /** The next commit fails with a {@link StorageException} of {@code message}, writing nothing. */
  public void failNextCommit(String message) {
    failNext = message;
  }

  @Override
  public void commit(Batch batch, boolean sync) {
    String failure = failNext;
    if (failure != null) {
      failNext = null;
      throw new StorageException(failure, null);
    }
    if (holdNext) {
      holdNext = false;
      entered.countDown();
      try {
        if (!released.await(30, TimeUnit.SECONDS)) {
          throw new StorageException("the held commit was never released", null);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StorageException("interrupted while the commit was held", e);
      }
    }
    delegate.commit(batch, sync);
  }

  @Override
  public byte[] get(Space space, byte[] key) {
    byte[] failing = failingKey;
    if (failing != null && Arrays.equals(failing, key)) {
      throw new StorageException("read of " + space + " key " + Arrays.toString(key) + " failed: I/O error", null);
    }
    return delegate.get(space, key);
  }

  @Override
  public View view() {
    return delegate.view();
  }

  @Override
  public void checkpoint(Path dir) {
    delegate.checkpoint(dir);
  }

  @Override
  public void restoreFrom(Path dir) {
    delegate.restoreFrom(dir);
  }

  @Override
  public void close() {
    delegate.close();
  }
}
