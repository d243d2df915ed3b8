package io.futureq.group;

import io.futureq.config.TopicSettings;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Runs a {@link DueFeed}'s reads on the storage executor, and remembers what was removed while any of
 * them ran: a read sees the store as it was when it started, so it may return messages removed since,
 * which its result must drop. Owned by the feed, not thread-safe.
 */
final class DueReads {
  private final String topic;
  private final TopicSettings settings;
  private final DueReader reader;
  private final Executor storageExecutor;
  /** Removed while a read ran: dropped from what that read returns. Cleared once no read runs. */
  private final Set<ByteBuffer> removedDuringReads = new HashSet<>();
  private int readsRunning;

  DueReads(String topic, TopicSettings settings, DueReader reader, Executor storageExecutor) {
    this.topic = topic;
    this.settings = settings;
    this.reader = reader;
    this.storageExecutor = storageExecutor;
  }

  /**
   * Starts reading the messages due by {@link DueFeed#READ_AHEAD_MS} from now, after {@code from} (null: the
   * topic's start) and up to {@code bound} (null: no bound), one chunk at most. Each read started is
   * {@link #finished} once its result is in.
   */
  CompletableFuture<DueReader.Chunk> start(byte[] from, byte[] bound, long nowMs) {
    readsRunning++;
    return CompletableFuture.supplyAsync(
        () -> reader.read(topic, from, bound, nowMs + DueFeed.READ_AHEAD_MS, nowMs, settings.readChunk()),
        storageExecutor);
  }

  void finished() {
    readsRunning--;
  }

  /** A message was removed: reads running now drop it from what they return. */
  void removed(byte[] storageKey) {
    if (readsRunning > 0) {
      removedDuringReads.add(ByteBuffer.wrap(storageKey));
    }
  }

  boolean removedDuringRead(byte[] storageKey) {
    return !removedDuringReads.isEmpty() && removedDuringReads.contains(ByteBuffer.wrap(storageKey));
  }

  /** Forgets the removals once no read runs: a read started later does not see them. */
  void forgetRemovedIfIdle() {
    if (readsRunning == 0) {
      removedDuringReads.clear();
    }
  }
}
