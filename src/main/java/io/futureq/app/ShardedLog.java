package io.futureq.app;

import io.futureq.config.BrokerSettings;
import io.futureq.log.BrokerStateMachine;
import io.futureq.log.EventLog;
import io.futureq.log.LocalEventLog;
import io.futureq.log.LogShards;
import io.futureq.log.WriteQueueLimit;
import io.futureq.log.raft.RaftEventLog;
import io.futureq.metrics.LogMetrics;
import io.futureq.storage.OrderedStore;
import io.futureq.topic.AppliedAnnouncer;
import io.futureq.topic.LocalTopics;
import io.futureq.topic.TopicRouter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * This node's event log, one per log shard: each shard's replica (its Ratis division clustered, its fsynced store
 * standalone), its announcer to the topics hosted here, and its write path (router, leader placement, writer).
 *
 * @param shards what the rest of the node is given: each shard's store, state machine and writer
 * @param logs each shard's replica of the log, by shard
 * @param raft the same when clustered, else empty
 */
record ShardedLog(LogShards shards, List<EventLog> logs, List<RaftEventLog> raft) {

  /**
   * Starts every shard's log and write path.
   *
   * @param replicaFailed told when a Raft replica can apply no more
   */
  static ShardedLog start(ActorSystem<Guardian.Command> system, BrokerSettings settings, List<OrderedStore> stores,
      List<BrokerStateMachine> stateMachines, TopicRouter router, LocalTopics localTopics, LogMetrics logMetrics,
      Consumer<Throwable> replicaFailed) {
    boolean clustered = settings.cluster().enabled();
    int count = stores.size();
    // The Raft logs are started with the announcers as their listeners, so each announcer asks its log through this.
    List<RaftEventLog> raft = new ArrayList<>();
    List<EventLog.AppliedListener> announcers = new ArrayList<>();
    for (int k = 0; k < count; k++) {
      int shard = k;
      announcers.add(new AppliedAnnouncer(router, localTopics, clustered,
          () -> !clustered || (raft.size() > shard && raft.get(shard).leading())));
    }
    WriteQueueLimit writeLimit = new WriteQueueLimit(settings.storage().maxQueuedCommands(),
        settings.storage().maxQueuedBytes());
    // Only the write leaders append to the logs (one entry at a time), and the replicas' barriers: the limit
    // applies in front of the leaders, to what every writer on this node waits for.
    WriteQueueLimit unlimited = new WriteQueueLimit(Integer.MAX_VALUE, Long.MAX_VALUE);
    if (clustered) {
      raft.addAll(RaftEventLog.startShards(settings.raft(), stores, stateMachines, announcers, unlimited,
          logMetrics::recordCommit, replicaFailed));
    }
    List<EventLog> logs = new ArrayList<>();
    List<LogShards.Shard> shards = new ArrayList<>();
    for (int k = 0; k < count; k++) {
      EventLog log = clustered ? raft.get(k) : new LocalEventLog(stores.get(k), stateMachines.get(k),
          settings.storage().fsync(), settings.storage().groupCommitMaxCommands(), unlimited, announcers.get(k),
          logMetrics::recordCommit);
      logs.add(log);
      EventLog writer = WritePath.start(system, settings, k, log, clustered ? raft.get(k) : null, stores.get(k),
          writeLimit);
      shards.add(new LogShards.Shard(k, stores.get(k), stateMachines.get(k), writer));
    }
    return new ShardedLog(new LogShards(shards), List.copyOf(logs), List.copyOf(raft));
  }

  /** Shard 0's Raft log (its status stands for the node's, it watches the peers), or null standalone. */
  RaftEventLog raftShardZero() {
    return raft.isEmpty() ? null : raft.get(0);
  }

  /** Why some shard's replica has not caught up since start (the first such), or null when all have. */
  String behind() {
    for (RaftEventLog log : raft) {
      String behind = log.behind();
      if (behind != null) {
        return raft.size() == 1 ? behind : "log shard " + log.shard() + ": " + behind;
      }
    }
    return null;
  }

  /** Hands over every Raft leadership this node holds, all shards at once. */
  CompletableFuture<Void> handOverLeadership() {
    return CompletableFuture.allOf(raft.stream().map(RaftEventLog::handOverLeadership)
        .toArray(CompletableFuture[]::new));
  }

  /** Closes every shard's log; shard 0's last, as it stops the Raft server every shard shares. */
  void close() {
    for (int k = logs.size() - 1; k >= 0; k--) {
      logs.get(k).close();
    }
  }
}
