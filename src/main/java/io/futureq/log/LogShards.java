package io.futureq.log;

import io.futureq.storage.OrderedStore;
import io.futureq.storage.StorageKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReferenceArray;

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
   * @param store its store, or null when this node holds no replica of the shard ({@link ShardPlacement})
   * @param state the state machine writing that store, null likewise
   * @param log what writers append to: the shard's write path (its leader, wherever it runs)
   */
  public record Shard(int index, OrderedStore store, BrokerStateMachine state, EventLog log) {
    public Shard {
      if ((store == null) != (state == null)) {
        throw new IllegalArgumentException("shard " + index + ": a store without its state machine or the reverse");
      }
      Objects.requireNonNull(log, "log");
    }

    /** Whether this node holds a replica of the shard: its store, state and topics are here. */
    public boolean held() {
      return store != null;
    }
  }

  /** Each shard as this node has it now: a node takes up and gives up replicas while it runs ({@link #replace}). */
  private final AtomicReferenceArray<Shard> shards;
  private final long bucketMs;

  /** @param shards by index, from 0, at least one held */
  public LogShards(List<Shard> shards) {
    this(shards, shards.stream().filter(Shard::held).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no log shard held")).state().bucketMs());
  }

  /**
   * @param shards by index, from 0
   * @param bucketMs the due bucket size, the same in every shard
   */
  public LogShards(List<Shard> shards, long bucketMs) {
    if (shards.isEmpty()) {
      throw new IllegalArgumentException("at least one log shard");
    }
    for (int i = 0; i < shards.size(); i++) {
      if (shards.get(i).index() != i) {
        throw new IllegalArgumentException("shard " + shards.get(i).index() + " at position " + i);
      }
    }
    this.shards = new AtomicReferenceArray<>(shards.toArray(new Shard[0]));
    this.bucketMs = bucketMs;
  }

  /** From now on, shard {@code shard.index()} is {@code shard}: this node took up or gave up its replica. */
  public void replace(Shard shard) {
    shards.set(shard.index(), shard);
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
    return shards.get(indexOf(topic, shards.length()));
  }

  /** {@code topic}'s shard, which this node must hold: reads of its store are asked of a node holding it. */
  private Shard held(String topic) {
    Shard shard = of(topic);
    if (!shard.held()) {
      throw new IllegalStateException("topic " + topic + " lies in log shard " + shard.index()
          + ", which this node does not hold (futureq.cluster.replication-factor): ask a node that holds it");
    }
    return shard;
  }

  public Shard get(int index) {
    return shards.get(index);
  }

  /** Every shard as this node has it now, in order. */
  public List<Shard> all() {
    List<Shard> out = new ArrayList<>(shards.length());
    for (int k = 0; k < shards.length(); k++) {
      out.add(shards.get(k));
    }
    return out;
  }

  public int count() {
    return shards.length();
  }

  /** The shards this node holds a replica of now, in order. */
  public List<Shard> held() {
    return all().stream().filter(Shard::held).toList();
  }

  /** Whether this node holds a replica of {@code topic}'s shard. */
  public boolean holds(String topic) {
    return of(topic).held();
  }

  /** The due bucket size, the same in every shard. */
  public long bucketMs() {
    return bucketMs;
  }

  /** Whether {@code topic}'s shard has ever stored it (and it was not deleted). */
  public boolean knowsTopic(String topic) {
    return held(topic).state().knowsTopic(topic);
  }

  /** Pending messages of {@code topic}, from its shard's book. */
  public long pending(String topic) {
    return held(topic).state().pending(topic);
  }

  /** The per-due-second counts of {@code topic} (the console's timeline), from its shard. */
  public CompletableFuture<TopicDueCounts> dueCounts(String topic, Executor executor) {
    return held(topic).state().dueCounts().of(topic, executor);
  }

  /** How many topics the shards this node holds know together. */
  public int topicCount() {
    return held().stream().mapToInt(s -> s.state().topicCount()).sum();
  }
}
