package io.futureq.topic;

import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Set;
import java.util.function.Function;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.Address;
import org.apache.pekko.cluster.sharding.ShardCoordinator;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Map;
import scala.collection.immutable.Map$;
import scala.concurrent.Future;
import scala.jdk.javaapi.CollectionConverters;
import scala.jdk.javaapi.FutureConverters;

/**
 * Where Cluster Sharding runs the topics of one log shard when not every node holds every shard: on the nodes that
 * hold a replica of that shard ({@link ShardHolders}), whose store the topics read, and among them as Pekko's own
 * strategy would (the least loaded; topics leveled out between them). Topics found on a node that no longer holds
 * the shard are handed back at the next rebalance, so holders that change while the cluster runs are followed.
 * A topic asked for before any holder is known waits for one (a node lists its shards a moment after it joins).
 */
final class HolderAllocation implements ShardCoordinator.ActorSystemDependentAllocationStrategy {
  static final Duration WAIT_FOR_HOLDER = Duration.ofSeconds(10);

  private final int logShard;
  private final ShardHolders holders;
  private final ShardCoordinator.ShardAllocationStrategy among;
  private final Function<ActorRef, Address> nodeOf;

  /**
   * @param logShard the log shard whose topics this places
   * @param among how to choose among the holders' regions: Pekko's default strategy
   */
  HolderAllocation(int logShard, ShardHolders holders, ShardCoordinator.ShardAllocationStrategy among) {
    this(logShard, holders, among, region -> region.path().address());
  }

  /** @param nodeOf the address of a region's node (a test's regions all live in one system) */
  HolderAllocation(int logShard, ShardHolders holders, ShardCoordinator.ShardAllocationStrategy among,
      Function<ActorRef, Address> nodeOf) {
    this.logShard = logShard;
    this.holders = holders;
    this.among = among;
    this.nodeOf = nodeOf;
  }

  /** The coordinator starts its strategy: Pekko's newer least-shard strategy reads the cluster's state. */
  @Override
  public void start(ActorSystem system) {
    if (among instanceof ShardCoordinator.ActorSystemDependentAllocationStrategy dependent) {
      dependent.start(system);
    } else if (among instanceof ShardCoordinator.StartableAllocationStrategy startable) {
      startable.start();
    }
  }

  @Override
  public Future<ActorRef> allocateShard(ActorRef requester, String shardId, Map<ActorRef, IndexedSeq<String>> current) {
    Map<ActorRef, IndexedSeq<String>> holding = holding(current);
    if (!holding.isEmpty()) {
      return among.allocateShard(requester, shardId, holding);
    }
    return FutureConverters.asScala(holders.someHolder(logShard, WAIT_FOR_HOLDER).thenCompose(known -> {
      Map<ActorRef, IndexedSeq<String>> now = holding(current);
      if (now.isEmpty()) {
        throw new IllegalStateException("no shard region on a node holding log shard " + logShard + " yet");
      }
      return FutureConverters.asJava(among.allocateShard(requester, shardId, now));
    }));
  }

  @Override
  public Future<scala.collection.immutable.Set<String>> rebalance(Map<ActorRef, IndexedSeq<String>> current,
      scala.collection.immutable.Set<String> inProgress) {
    Map<ActorRef, IndexedSeq<String>> holding = holding(current);
    if (holding.isEmpty()) {
      return Future.successful(scala.collection.immutable.Set$.MODULE$.empty());
    }
    Set<String> misplaced = new HashSet<>();
    CollectionConverters.asJava(current).forEach((region, shards) -> {
      if (!holds(region)) {
        CollectionConverters.asJava(shards).stream().filter(s -> !inProgress.contains(s)).forEach(misplaced::add);
      }
    });
    if (misplaced.isEmpty()) {
      return among.rebalance(holding, inProgress);
    }
    return FutureConverters.asScala(FutureConverters.asJava(among.rebalance(holding, inProgress)).thenApply(leveled -> {
      misplaced.addAll(CollectionConverters.asJava(leveled));
      return scala.collection.immutable.Set$.MODULE$.from(CollectionConverters.asScala(misplaced));
    }));
  }

  private Map<ActorRef, IndexedSeq<String>> holding(Map<ActorRef, IndexedSeq<String>> current) {
    // fqn: Scala's immutable Map is the one this strategy's signatures take
    java.util.Map<ActorRef, IndexedSeq<String>> holding = new LinkedHashMap<>();
    CollectionConverters.asJava(current).forEach((region, shards) -> {
      if (holds(region)) {
        holding.put(region, shards);
      }
    });
    return Map$.MODULE$.from(CollectionConverters.asScala(holding));
  }

  private boolean holds(ActorRef region) {
    return holders.holds(logShard, nodeOf.apply(region));
  }
}
