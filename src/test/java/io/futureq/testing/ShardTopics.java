package io.futureq.testing;

import io.futureq.log.LogShards;

/** Topic names chosen for the log shard they fall in. */
public final class ShardTopics {
  private ShardTopics() {}

  /** The first name {@code prefix} + n (n = 0, 1, ...) that belongs to {@code shard} of {@code count}. */
  public static String in(int shard, int count, String prefix) {
    for (int i = 0; ; i++) {
      if (LogShards.indexOf(prefix + i, count) == shard) {
        return prefix + i;
      }
    }
  }
}
