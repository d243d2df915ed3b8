package io.futureq.app;

import io.futureq.api.ShardCalls;
import io.futureq.log.LogShards;
import io.futureq.log.ReplicaMoves;
import io.futureq.log.proto.ReplicaGroup;
import io.futureq.log.proto.ReplicaStep;
import io.futureq.log.raft.RaftEventLog;
import io.futureq.topic.LocalTopics;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves log shards' replicas between nodes when a node is added to or removed from a cluster where not every node
 * holds every shard ({@link ReplicaMoves} plans them). Each move, one replica of one shard at a time, so every shard
 * keeps its quorum: the node it goes to takes up a replica (a new division that waits), a holder adds it to the
 * shard's group (as a listener until it caught up, then a voter), the node is listed among the shard's holders (its
 * topics and relayed requests may go there from then on), a holder removes the node it leaves, and that node gives
 * its replica up (once the topics it hosted moved to the other holders). The steps run where they must, through
 * {@link ShardCalls}; a change that stops half-way is resumed by asking for it again (the plan starts from the
 * groups as they are).
 */
final class ReplicaMover {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaMover.class);
  static final String TAKE_UP = "replica.takeUp";
  static final String GIVE_UP = "replica.giveUp";
  static final String GROUP = "replica.group";
  static final String ADD_PEER = "replica.addPeer";
  static final String REMOVE_PEER = "replica.removePeer";
  static final String DROP_IDLE = "replica.dropIdle";
  static final String SERVE = "replica.serve";
  /** A step may install a snapshot of the whole shard, or wait for the topics hosted on a node to move. */
  static final Duration STEP_TIMEOUT = Duration.ofMinutes(5);
  /** How long a node giving up a replica waits for the topics it hosts to move to the other holders. */
  static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(60);

  private final ShardCalls calls;
  private final int shards;

  /**
   * Registers this node's handlers of the steps: taking up and giving up a replica here ({@code log}), and, for a
   * shard held here, reading, adding to and removing from its group.
   */
  ReplicaMover(ShardCalls calls, ShardedLog log, LocalTopics localTopics) {
    this.calls = calls;
    this.shards = log.shards().count();
    calls.register(TAKE_UP, ReplicaStep.parser(), (any, step) -> CompletableFuture.supplyAsync(() -> {
      try {
        // A joining node prepared every shard: a replica waiting to be added is as good as one taken up now.
        if (!log.shards().get(step.getShard()).held()) {
          log.takeUp(step.getShard());
        }
        return ReplicaGroup.getDefaultInstance();
      } catch (IOException e) {
        throw new IllegalStateException("taking up log shard " + step.getShard() + ": " + e.getMessage(), e);
      }
    }));
    calls.register(GIVE_UP, ReplicaStep.parser(), (any, step) -> log.giveUp(step.getShard(),
        drained(localTopics, step.getShard())).thenApply(v -> ReplicaGroup.getDefaultInstance()));
    calls.register(SERVE, ReplicaStep.parser(), (any, step) -> {
      calls.holds(step.getShard(), true);
      return CompletableFuture.completedFuture(ReplicaGroup.getDefaultInstance());
    });
    calls.register(DROP_IDLE, ReplicaStep.parser(), (any, step) -> {
      List<CompletableFuture<Void>> dropped = new ArrayList<>();
      for (RaftEventLog replica : log.raft()) {
        if (!replica.status().peers().containsKey(replica.status().nodeId())) {
          dropped.add(log.giveUp(replica.shard(), drained(localTopics, replica.shard())));
        }
      }
      return CompletableFuture.allOf(dropped.toArray(CompletableFuture[]::new))
          .thenApply(v -> ReplicaGroup.getDefaultInstance());
    });
    calls.register(GROUP, ReplicaStep.parser(), (shard, step) -> CompletableFuture.completedFuture(
        ReplicaGroup.newBuilder().putAllVoters(replica(log, step.getShard()).status().peers()).build()));
    calls.register(ADD_PEER, ReplicaStep.parser(), (shard, step) -> replica(log, step.getShard())
        .addPeer(step.getNodeId(), step.getRaftAddress()).thenApply(v -> ReplicaGroup.getDefaultInstance()));
    calls.register(REMOVE_PEER, ReplicaStep.parser(), (shard, step) -> replica(log, step.getShard())
        .removePeer(step.getNodeId()).thenApply(v -> ReplicaGroup.getDefaultInstance()));
  }

  private static RaftEventLog replica(ShardedLog log, int shard) {
    return log.raft().stream().filter(r -> r.shard() == shard).findFirst()
        .orElseThrow(() -> new IllegalStateException("this node holds no replica of log shard " + shard));
  }

  /** Completes once no topic of {@code shard} is hosted here, or fails after {@link #DRAIN_TIMEOUT}. */
  private CompletableFuture<Void> drained(LocalTopics topics, int shard) {
    CompletableFuture<Void> drained = new CompletableFuture<>();
    long deadline = System.nanoTime() + DRAIN_TIMEOUT.toNanos();
    Runnable check = new Runnable() {
      @Override
      public void run() {
        List<String> left = topics.names().stream().filter(t -> LogShards.indexOf(t, shards) == shard).toList();
        if (left.isEmpty()) {
          drained.complete(null);
        } else if (System.nanoTime() > deadline) {
          drained.completeExceptionally(new IllegalStateException("topics " + left + " of log shard " + shard
              + " still run here after " + DRAIN_TIMEOUT.toSeconds() + " s: this node keeps its store of the shard, "
              + "outside the group; ask for the change again"));
        } else {
          CompletableFuture.runAsync(this, CompletableFuture.delayedExecutor(200, TimeUnit.MILLISECONDS));
        }
      }
    };
    CompletableFuture.runAsync(check);
    return drained;
  }

  /**
   * Moves replicas so that the shards live on {@code nodes} (their ids) and no node holds two more than another,
   * from {@code groups} as {@link #groups} read them; {@code added} gives the Raft address of each node not in any
   * group yet.
   */
  CompletionStage<Void> resize(Map<Integer, ReplicaGroup> groups, Set<String> nodes, Map<String, String> added) {
    return CompletableFuture.completedFuture(groups).thenCompose(read -> {
      Map<String, String> addresses = new TreeMap<>(added);
      Map<Integer, Set<String>> holders = new TreeMap<>();
      read.forEach((shard, group) -> {
        addresses.putAll(group.getVotersMap());
        holders.put(shard, new TreeSet<>(group.getVotersMap().keySet()));
      });
      List<ReplicaMoves.Move> moves = ReplicaMoves.plan(holders, nodes);
      LOG.info("moving {} replicas so that the log shards live on {}: {}", moves.size(), nodes, moves);
      CompletableFuture<Void> done = CompletableFuture.completedFuture(null);
      for (ReplicaMoves.Move move : moves) {
        done = done.thenCompose(v -> move(move, addresses.get(move.to())));
      }
      // A node that joined prepared a replica of every shard, and one that stopped half-way through giving a replica
      // up holds it again after a restart: replicas outside their group go.
      for (String node : nodes) {
        done = done.thenCompose(v -> calls.callNode(node, DROP_IDLE, step(0, "", ""), ReplicaGroup.parser(),
            STEP_TIMEOUT).thenApply(g -> null));
      }
      return done;
    });
  }

  /** The nodes holding each shard now: each shard's group as a holder knows it. */
  CompletableFuture<Map<Integer, ReplicaGroup>> groups() {
    List<CompletableFuture<ReplicaGroup>> asked = new ArrayList<>();
    for (int k = 0; k < shards; k++) {
      asked.add(calls.call(k, GROUP, step(k, "", ""), ReplicaGroup.parser()));
    }
    return CompletableFuture.allOf(asked.toArray(CompletableFuture[]::new)).thenApply(v -> {
      Map<Integer, ReplicaGroup> out = new TreeMap<>();
      for (int k = 0; k < shards; k++) {
        out.put(k, asked.get(k).join());
      }
      return out;
    });
  }

  private CompletableFuture<Void> move(ReplicaMoves.Move move, String toAddress) {
    int k = move.shard();
    LOG.info("log shard {}: moving its replica from {} to {}", k, move.from(), move.to());
    return calls.callNode(move.to(), TAKE_UP, step(k, "", ""), ReplicaGroup.parser(), STEP_TIMEOUT)
        .thenCompose(v -> calls.call(k, ADD_PEER, step(k, move.to(), toAddress), ReplicaGroup.parser(),
            STEP_TIMEOUT))
        .thenCompose(v -> calls.callNode(move.to(), SERVE, step(k, "", ""), ReplicaGroup.parser(), STEP_TIMEOUT))
        .thenCompose(v -> calls.call(k, REMOVE_PEER, step(k, move.from(), ""), ReplicaGroup.parser(),
            STEP_TIMEOUT))
        .thenCompose(v -> calls.callNode(move.from(), GIVE_UP, step(k, "", ""), ReplicaGroup.parser(),
            STEP_TIMEOUT)
            .exceptionally(e -> {
              // Out of the group already: a node that is gone keeps its data, which nothing reads any more.
              LOG.warn("log shard {}: {} did not give up its replica ({}); it is no longer in the group", k,
                  move.from(), e.getMessage());
              return null;
            }))
        .thenRun(() -> LOG.info("log shard {}: moved its replica from {} to {}", k, move.from(), move.to()));
  }

  private static ReplicaStep step(int shard, String node, String address) {
    return ReplicaStep.newBuilder().setShard(shard).setNodeId(node).setRaftAddress(address).build();
  }
}
