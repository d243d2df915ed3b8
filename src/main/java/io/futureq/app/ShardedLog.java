package io.futureq.app;

import io.futureq.config.BrokerSettings;
import io.futureq.log.EventLog;
import io.futureq.log.LocalEventLog;
import io.futureq.log.LogShards;
import io.futureq.log.NoReplica;
import io.futureq.log.WriteQueueLimit;
import io.futureq.log.raft.RaftEventLog;
import io.futureq.log.raft.ReplicaHost;
import io.futureq.metrics.LogMetrics;
import io.futureq.storage.OrderedStore;
import io.futureq.topic.AppliedAnnouncer;
import io.futureq.topic.LocalTopics;
import io.futureq.topic.TopicRouter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * This node's event log, one per log shard: each held shard's replica (its Ratis division clustered, its fsynced
 * store standalone), its announcer to the topics hosted here, and each shard's write path (router, and for a held
 * shard its leader placement and writer). A shard this node does not hold ({@link ShardStores#placement}) has only
 * the router: its writes go to the shard's leader on another node.
 *
 * @param shards what the rest of the node is given: each shard's store and state machine (when held) and writer
 * @param logs each held shard's replica of the log, in shard order
 * @param host the Raft server and its replicas when clustered, else null
 */
record ShardedLog(LogShards shards, List<EventLog> logs, ReplicaHost host) {

  /**
   * Starts every shard's log and write path.
   *
   * @param opened each shard's store and state machine, null where this node holds no replica
   * @param replicaFailed told when a Raft replica can apply no more
   */
  static ShardedLog start(ActorSystem<Guardian.Command> system, BrokerSettings settings, ShardStores opened,
      TopicRouter router, LocalTopics localTopics, LogMetrics logMetrics, Consumer<Throwable> replicaFailed) {
    boolean clustered = settings.cluster().enabled();
    List<OrderedStore> stores = opened.stores();
    int count = stores.size();
    // The Raft logs are started with the announcers as their listeners, so each announcer asks its log through this.
    Map<Integer, RaftEventLog> raft = new ConcurrentHashMap<>();
    List<ReplicaHost.Shard> held = new ArrayList<>();
    Map<Integer, EventLog.AppliedListener> announcers = new HashMap<>();
    for (int k = 0; k < count; k++) {
      if (stores.get(k) == null) {
        continue;
      }
      int shard = k;
      EventLog.AppliedListener announcer = new AppliedAnnouncer(router, localTopics, clustered,
          () -> !clustered || (raft.containsKey(shard) && raft.get(shard).leading()));
      announcers.put(k, new AppliedMessages(k, announcer));
      held.add(new ReplicaHost.Shard(k, stores.get(k), opened.stateMachines().get(k), announcers.get(k),
          opened.placement() == null ? null : opened.placement().replicas(k)));
    }
    WriteQueueLimit writeLimit = new WriteQueueLimit(settings.storage().maxQueuedCommands(),
        settings.storage().maxQueuedBytes());
    // Only the write leaders append to the logs (one entry at a time), and the replicas' barriers: the limit
    // applies in front of the leaders, to what every writer on this node waits for.
    WriteQueueLimit unlimited = new WriteQueueLimit(Integer.MAX_VALUE, Long.MAX_VALUE);
    ReplicaHost host = clustered ? RaftEventLog.startShards(settings.raft(), count, held, unlimited,
        logMetrics::recordCommit, replicaFailed) : null;
    if (host != null) {
      host.logs().forEach(log -> raft.put(log.shard(), log));
    }
    List<EventLog> logs = new ArrayList<>();
    List<LogShards.Shard> shards = new ArrayList<>();
    for (int k = 0; k < count; k++) {
      OrderedStore store = stores.get(k);
      EventLog log = store == null ? new NoReplica(k) : clustered ? raft.get(k)
          : new LocalEventLog(store, opened.stateMachines().get(k), settings.storage().fsync(),
              settings.storage().groupCommitMaxCommands(), unlimited, announcers.get(k), logMetrics::recordCommit);
      if (store != null) {
        logs.add(log);
      }
      EventLog writer = WritePath.start(system, settings, k, log, clustered ? raft.get(k) : null, store, writeLimit);
      shards.add(new LogShards.Shard(k, store, opened.stateMachines().get(k), writer));
    }
    return new ShardedLog(new LogShards(shards, settings.topic().bucketMs()), List.copyOf(logs), host);
  }

  /** The Raft log of each shard this node holds, in shard order; empty standalone. */
  List<RaftEventLog> raft() {
    return host == null ? List.of() : host.logs();
  }

  /** The Raft log of this node's first held shard (its status stands for the node's), or null standalone. */
  RaftEventLog raftFirst() {
    return host == null ? null : host.logs().get(0);
  }

  /** Why some shard's replica has not caught up since start (the first such), or null when all have. */
  String behind() {
    List<RaftEventLog> raft = raft();
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
    return CompletableFuture.allOf(raft().stream().map(RaftEventLog::handOverLeadership)
        .toArray(CompletableFuture[]::new));
  }

  /** Closes every held shard's log, then the Raft server they share. */
  void close() {
    if (host != null) {
      host.close();
      return;
    }
    for (int k = logs.size() - 1; k >= 0; k--) {
      logs.get(k).close();
    }
  }
}
