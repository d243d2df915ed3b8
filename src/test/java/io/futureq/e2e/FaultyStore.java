package io.futureq.e2e;

import io.futureq.storage.OrderedStore;
import io.futureq.storage.StorageException;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * Wraps a real store and, on demand, fails, slows or holds its commits (disk full, I/O error, slow disk,
 * a replica whose apply lags the log).
 */
public final class FaultyStore implements OrderedStore {
  private final OrderedStore delegate;
  volatile String failure;
  volatile long commitDelayMs;
  private volatile CountDownLatch held;

  public FaultyStore(OrderedStore delegate) {
    this.delegate = delegate;
  }

  /** From now on every commit fails with {@code why}, as on a full or broken disk. */
  public void failCommits(String why) {
    failure = why;
  }

  /** From now on every commit waits until {@link #releaseCommits}: reads still see what was committed. */
  public void holdCommits() {
    held = new CountDownLatch(1);
  }

  public void releaseCommits() {
    CountDownLatch latch = held;
    held = null;
    if (latch != null) {
      latch.countDown();
    }
  }

  @Override
  public Batch newBatch() {
    return delegate.newBatch();
  }

  @Override
  public void commit(Batch batch, boolean sync) {
    String fail = failure;
    if (fail != null) {
      throw new StorageException("write to the data directory failed: " + fail, null);
    }
    CountDownLatch latch = held;
    if (latch != null) {
      try {
        latch.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    long delay = commitDelayMs;
    if (delay > 0) {
      try {
        Thread.sleep(delay); // a sleep: the slow disk this store stands for
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    delegate.commit(batch, sync);
  }

  @Override
  public byte[] get(Space space, byte[] key) {
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
