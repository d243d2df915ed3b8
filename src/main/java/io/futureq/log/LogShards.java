package io.futureq.log;

import io.futureq.storage.OrderedStore;
import io.futureq.storage.StorageKeys;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * This node's shards of the event log ({@code futureq.cluster.log-shards}): each is a log of its own (its own Raft
 * group clustered, its own fsynced store standalone) with its own store, state machine and write leader. A topic
 * belongs to one shard, by a stable hash of its name; a topic's dead-letter topic belongs to the topic's shard, so
 * that moving a message there stays one atomic command. Everything about a topic (its writes, its reads, its
 * entity's store) goes through {@link #of}.
 */
public final class LogShards {
  /**
   * One shard as this node has it.
   *
   * @param log what writers append to: the shard's write path (its leader, wherever it runs)
   */
  public record Shard(int index, OrderedStore store, BrokerStateMachine state, EventLog log) {
    public Shard {
      Objects.requireNonNull(store, "store");
      Objects.requireNonNull(state, "state");
      Objects.requireNonNull(log, "log");
    }
  }

  private final List<Shard> shards;

  /** @param shards by index, from 0 */
  public LogShards(List<Shard> shards) {
    if (shards.isEmpty()) {
      throw new IllegalArgumentException("at least one log shard");
    }
    for (int i = 0; i < shards.size(); i++) {
      if (shards.get(i).index() != i) {
        throw new IllegalArgumentException("shard " + shards.get(i).index() + " at position " + i);
      }
    }
    this.shards = List.copyOf(shards);
  }

  /**
   * The shard of {@code topic} among {@code count}: FNV-1a of the name without its dead-letter suffixes (the same
   * hash the storage keys use, so it never changes), modulo the count.
   */
  public static int indexOf(String topic, int count) {
    String base = topic;
    while (base.endsWith(BrokerStateMachine.DEAD_LETTER_SUFFIX)) {
      base = base.substring(0, base.length() - BrokerStateMachine.DEAD_LETTER_SUFFIX.length());
    }
    return (int) Long.remainderUnsigned(StorageKeys.topicHash(base), count);
  }

  public Shard of(String topic) {
    return shards.get(indexOf(topic, shards.size()));
  }

  public Shard get(int index) {
    return shards.get(index);
  }

  public List<Shard> all() {
    return shards;
  }

  public int count() {
    return shards.size();
  }

  /** The due bucket size, the same in every shard. */
  public long bucketMs() {
    return shards.get(0).state().bucketMs();
  }

  /** Whether {@code topic}'s shard has ever stored it (and it was not deleted). */
  public boolean knowsTopic(String topic) {
    return of(topic).state().knowsTopic(topic);
  }

  /** Pending messages of {@code topic}, from its shard's book. */
  public long pending(String topic) {
    return of(topic).state().pending(topic);
  }

  /** The per-due-second counts of {@code topic} (the console's timeline), from its shard. */
  public CompletableFuture<TopicDueCounts> dueCounts(String topic, Executor executor) {
    return of(topic).state().dueCounts().of(topic, executor);
  }

  /** How many topics the shards know together. */
  public int topicCount() {
    return shards.stream().mapToInt(s -> s.state().topicCount()).sum();
  }
}
