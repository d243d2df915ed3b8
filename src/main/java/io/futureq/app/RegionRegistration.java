package io.futureq.app;

import io.futureq.topic.TopicEntity;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.stream.IntStream;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.cluster.Cluster;
import org.apache.pekko.cluster.sharding.ClusterSharding;
import org.apache.pekko.cluster.sharding.ShardRegion;
import org.apache.pekko.pattern.Patterns;

/**
 * Whether Cluster Sharding's coordinators know this node's topic regions. A region registers a moment after its node
 * is Up (seconds, when the coordinator's node has not heard of the new member yet); until then every topic asked
 * for goes to the nodes already registered and stays there until a rebalance. So a node is not ready before.
 * Once registered it stays so for this check: a region that loses its coordinator registers again by itself.
 */
final class RegionRegistration {
  private static final Duration EVERY = Duration.ofMillis(200);
  private static final Duration ASK_TIMEOUT = Duration.ofSeconds(3);

  private final ActorSystem<?> system;
  private final List<String> typeNames;
  private final Address self;
  private volatile boolean registered;

  private RegionRegistration(ActorSystem<?> system, List<String> typeNames) {
    this.system = system;
    this.typeNames = List.copyOf(typeNames);
    this.self = Cluster.get(Adapter.toClassic(system)).selfAddress();
  }

  /** Starts asking the coordinators of the topics of {@code logShards} shards until each lists this node's region. */
  static RegionRegistration watchTopics(ActorSystem<?> system, int logShards) {
    RegionRegistration registration = new RegionRegistration(system,
        IntStream.range(0, logShards).mapToObj(k -> TopicEntity.entityKey(k).name()).toList());
    registration.ask();
    return registration;
  }

  /** Why this node cannot host topics yet, or null once every coordinator lists its region. */
  String whyNot() {
    return registered ? null : "topic regions not yet registered with Cluster Sharding's coordinators";
  }

  private void ask() {
    allListSelf().whenComplete((all, failure) -> {
      if (Boolean.TRUE.equals(all)) {
        registered = true;
      } else if (!system.getWhenTerminated().toCompletableFuture().isDone()) {
        system.scheduler().scheduleOnce(EVERY, this::ask, system.executionContext());
      }
    });
  }

  private CompletionStage<Boolean> allListSelf() {
    CompletableFuture<Boolean> all = CompletableFuture.completedFuture(true);
    ClusterSharding sharding = ClusterSharding.get(Adapter.toClassic(system));
    for (String typeName : typeNames) {
      CompletableFuture<Boolean> listed = Patterns.ask(sharding.shardRegion(typeName),
              ShardRegion.getCurrentRegionsInstance(), ASK_TIMEOUT)
          .thenApply(reply -> ((ShardRegion.CurrentRegions) reply).getRegions().contains(self))
          .toCompletableFuture();
      all = all.thenCombine(listed, Boolean::logicalAnd);
    }
    return all;
  }
}
