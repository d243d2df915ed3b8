package io.futureq.client;

import java.nio.charset.StandardCharsets;

/**
 * Which shard of the broker's event log a topic belongs to, as {@code ClusterInfo.log_shards} documents it: the
 * FNV-1a 64-bit hash of its UTF-8 name without trailing {@code .dead-letter} suffixes, unsigned, modulo the count. A
 * publish request's topics must lie in one shard, so the producer batches by it.
 */
final class LogShard {
  private static final String DEAD_LETTER_SUFFIX = ".dead-letter";

  private LogShard() {}

  static int of(String topic, int count) {
    String base = topic;
    while (base.endsWith(DEAD_LETTER_SUFFIX)) {
      base = base.substring(0, base.length() - DEAD_LETTER_SUFFIX.length());
    }
    long hash = 0xcbf29ce484222325L;
    for (byte b : base.getBytes(StandardCharsets.UTF_8)) {
      hash ^= b & 0xff;
      hash *= 0x100000001b3L;
    }
    return (int) Long.remainderUnsigned(hash, count);
  }
}
