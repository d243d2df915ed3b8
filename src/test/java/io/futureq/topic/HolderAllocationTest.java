package io.futureq.topic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.futureq.testing.Await;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.sharding.ShardCoordinator;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Map$;
import scala.concurrent.Future;
import scala.jdk.javaapi.CollectionConverters;
import scala.jdk.javaapi.FutureConverters;

/**
 * Where a log shard's topics run when not every node holds every shard: only on the shard's holders, which may change
 * while the cluster runs. Three shard regions stand for three nodes' (each is given a node's address; they live in
 * one system, a cluster of one, which Pekko's own strategy choosing among the holders' regions reads).
 */
class HolderAllocationTest {
  private static final ActorTestKit KIT = ActorTestKit.create(ConfigFactory.parseString(
      "pekko.actor.provider = cluster\n"
      + "pekko.remote.artery.canonical.hostname = 127.0.0.1\n"
      + "pekko.remote.artery.canonical.port = 0\n"));
  private static final Address NODE_A = new Address("pekko", "futureq", "10.0.0.1", 25520);
  private static final Address NODE_B = new Address("pekko", "futureq", "10.0.0.2", 25520);
  private static final Address NODE_C = new Address("pekko", "futureq", "10.0.0.3", 25520);

  private final ActorRef regionA = region();
  private final ActorRef regionB = region();
  private final ActorRef regionC = region();
  private final ShardHolders holders = new ShardHolders(NODE_A);
  private final HolderAllocation allocation = new HolderAllocation(0, holders,
      new ShardCoordinator.LeastShardAllocationStrategy(1, 3),
      region -> region == regionA ? NODE_A : region == regionB ? NODE_B : NODE_C);

  @BeforeAll
  static void joinItself() {
    Cluster cluster = Cluster.get(KIT.system());
    cluster.manager().tell(Join.create(cluster.selfMember().address()));
    Await.until("the test system is an Up member of its cluster", Duration.ofSeconds(30),
        () -> cluster.selfMember().status() == MemberStatus.up());
  }

  @BeforeEach
  void start() {
    allocation.start(Adapter.toClassic(KIT.system()));
  }

  @AfterAll
  static void stop() {
    KIT.shutdownTestKit();
  }

  @Test
  void aTopicRunsOnTheLeastLoadedNodeAmongThoseHoldingItsLogShardNeverElsewhere() throws Exception {
    holders.listed(0, List.of(NODE_A, NODE_C));
    // B runs nothing and asks, but holds no replica: its topics would find no store.
    ActorRef home = result(allocation.allocateShard(regionB, "17",
        regions(regionA, List.of("1", "2"), regionB, List.of(), regionC, List.of("3"))));
    assertEquals(regionC, home);
  }

  @Test
  void aTopicAskedForBeforeAnyHolderIsListedWaitsForOne() throws Exception {
    CompletableFuture<ActorRef> home = FutureConverters.asJava(allocation.allocateShard(regionA, "17",
        regions(regionA, List.of(), regionB, List.of(), regionC, List.of()))).toCompletableFuture();
    assertFalse(home.isDone(), "placed before any node was known to hold the shard");
    holders.listed(0, List.of(NODE_B));
    assertEquals(regionB, home.get(5, TimeUnit.SECONDS));
  }

  @Test
  void topicsOnANodeThatGaveUpItsReplicaAreHandedBackAndThoseMovingAlreadyAreLeft() throws Exception {
    holders.listed(0, List.of(NODE_A, NODE_B, NODE_C));
    holders.listed(0, List.of(NODE_B, NODE_C)); // A's replica moved away
    Set<String> moving = CollectionConverters.asJava(result(allocation.rebalance(
        regions(regionA, List.of("1", "2", "3"), regionB, List.of("4"), regionC, List.of("5")),
        scala.collection.immutable.Set$.MODULE$.from(CollectionConverters.asScala(List.of("3"))))));
    assertEquals(Set.of("1", "2"), moving);
  }

  @Test
  void withNoRegionOnAHolderNothingIsMovedForThereIsNowhereToGo() throws Exception {
    holders.listed(0, List.of(NODE_C));
    Set<String> moving = CollectionConverters.asJava(result(allocation.rebalance(
        regions(regionA, List.of("1"), regionB, List.of("2")), scala.collection.immutable.Set$.MODULE$.empty())));
    assertTrue(moving.isEmpty(), String.valueOf(moving));
  }

  @Test
  void anActorOfThisNodeListedByItsLocalAddressStandsForThisNode() {
    Address local = Adapter.toClassic(KIT.createTestProbe().ref()).path().address();
    assertFalse(local.hasGlobalScope());
    holders.listed(2, List.of(local));
    assertTrue(holders.holds(2, NODE_A));
    assertTrue(holders.holds(2, local));
    assertFalse(holders.holds(2, NODE_B));
    assertFalse(holders.holds(1, NODE_A), "another shard");
  }

  private static ActorRef region() {
    return Adapter.toClassic(KIT.createTestProbe().ref());
  }

  private static scala.collection.immutable.Map<ActorRef, IndexedSeq<String>> regions(Object... regionsAndShards) {
    Map<ActorRef, IndexedSeq<String>> regions = new LinkedHashMap<>();
    for (int i = 0; i < regionsAndShards.length; i += 2) {
      @SuppressWarnings("unchecked")
      List<String> shards = (List<String>) regionsAndShards[i + 1];
      regions.put((ActorRef) regionsAndShards[i], CollectionConverters.asScala(shards).toIndexedSeq());
    }
    return Map$.MODULE$.from(CollectionConverters.asScala(regions));
  }

  private static <T> T result(Future<T> future) throws Exception {
    return FutureConverters.asJava(future).toCompletableFuture().get(5, TimeUnit.SECONDS);
  }
}
