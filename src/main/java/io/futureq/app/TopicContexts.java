package io.futureq.app;

import io.futureq.api.ShardCalls;
import io.futureq.log.LogShards;
import io.futureq.topic.TopicContext;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;

/**
 * What a topic's entity starts with on this node, by log shard: the context of each shard this node holds, null for
 * the others. It follows the replicas the node takes up and gives up, and withdraws the node from a shard's holders
 * ({@link ShardCalls}) as it starts giving one up, so topics and relayed requests come here only while the store
 * is.
 */
final class TopicContexts implements ShardedLog.Holding {
  private final AtomicReferenceArray<TopicContext> contexts;
  private final Function<LogShards.Shard, TopicContext> contextOf;
  private volatile ShardCalls calls;

  /** @param contextOf the context of a shard this node holds */
  TopicContexts(LogShards shards, Function<LogShards.Shard, TopicContext> contextOf) {
    this.contexts = new AtomicReferenceArray<>(shards.count());
    this.contextOf = contextOf;
    shards.held().forEach(shard -> contexts.set(shard.index(), contextOf.apply(shard)));
  }

  /** Where a change of what this node holds is listed for the other nodes. */
  void listIn(ShardCalls calls) {
    this.calls = calls;
  }

  /** The context of log shard {@code shard}'s topics here, or null while this node holds no replica of it. */
  TopicContext of(int shard) {
    return contexts.get(shard);
  }

  int count() {
    return contexts.length();
  }

  /** A replica taken up is listed once it is a voter of its group ({@link ReplicaMover} says so): not yet. */
  @Override
  public void tookUp(LogShards.Shard shard) {
    contexts.set(shard.index(), contextOf.apply(shard));
  }

  @Override
  public void givingUp(int shard) {
    // Other nodes stop sending here, and the topics hosted here are moved to the nodes still listed.
    calls.holds(shard, false);
  }

  @Override
  public void gaveUp(int shard) {
    contexts.set(shard, null);
  }
}
