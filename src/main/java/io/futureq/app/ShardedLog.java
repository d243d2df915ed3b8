package io.futureq.app;

import io.futureq.config.BrokerSettings;
import io.futureq.log.BrokerStateMachine;
import io.futureq.log.EventLog;
import io.futureq.log.LocalEventLog;
import io.futureq.log.LogShards;
import io.futureq.log.NoReplica;
import io.futureq.log.WriteQueueLimit;
import io.futureq.log.leader.LeaderPlacement;
import io.futureq.log.leader.LogWriter;
import io.futureq.log.raft.RaftEventLog;
import io.futureq.log.raft.ReplicaHost;
import io.futureq.metrics.LogMetrics;
import io.futureq.storage.OrderedStore;
import io.futureq.topic.AppliedAnnouncer;
import io.futureq.topic.LocalTopics;
import io.futureq.topic.TopicRouter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * This node's event log, one per log shard: each held shard's replica (its Ratis division clustered, its fsynced
 * store standalone), its announcer to the topics hosted here, and each shard's write path (router, writer, leader
 * placement). A shard this node does not hold ({@link ShardStores#placement}) has its write path too: its writes go
 * to the shard's leader on another node, and its placement never leads. Clustered, the node takes up a shard's
 * replica while it runs ({@link #takeUp}) and gives one up ({@link #giveUp}), and whoever else follows what it
 * holds is told ({@link Holding}).
 */
final class ShardedLog {
  /** Told when this node starts or stops holding a shard's replica. */
  interface Holding {
    /** The node holds {@code shard}'s replica now: its store, state and writer are in {@link #shards()}. */
    void tookUp(LogShards.Shard shard);

    /** The node is giving up {@code shard}'s replica: nothing should start using its store any more. */
    void givingUp(int shard);

    /** The node no longer holds {@code shard}'s replica: its store is closed. */
    void gaveUp(int shard);
  }

  private final ActorSystem<Guardian.Command> system;
  private final BrokerSettings settings;
  private final TopicRouter router;
  private final LocalTopics localTopics;
  private final UnaryOperator<OrderedStore> storeWrapper;
  private final LogShards shards;
  private final List<LogWriter> writers;
  /** By shard when clustered, else empty. */
  private final List<ShardLeadership> leaderships;
  /** Each held shard's standalone log; empty clustered (the host closes its replicas). */
  private final List<EventLog> local;
  private final ReplicaHost host;
  /** Each held shard's Raft replica, read by its announcer (whether it leads). */
  private final Map<Integer, RaftEventLog> raft = new ConcurrentHashMap<>();
  private final List<Holding> holdings = new CopyOnWriteArrayList<>();

  private ShardedLog(ActorSystem<Guardian.Command> system, BrokerSettings settings, TopicRouter router,
      LocalTopics localTopics, UnaryOperator<OrderedStore> storeWrapper, LogShards shards, List<LogWriter> writers,
      List<ShardLeadership> leaderships, List<EventLog> local, ReplicaHost host) {
    this.system = system;
    this.settings = settings;
    this.router = router;
    this.localTopics = localTopics;
    this.storeWrapper = storeWrapper;
    this.shards = shards;
    this.writers = writers;
    this.leaderships = leaderships;
    this.local = local;
    this.host = host;
  }

  /**
   * Starts every shard's log and write path.
   *
   * @param opened each shard's store and state machine, null where this node holds no replica
   * @param storeWrapper wraps the store of a shard taken up later, as {@code opened}'s were
   * @param replicaFailed told when a Raft replica can apply no more
   */
  static ShardedLog start(ActorSystem<Guardian.Command> system, BrokerSettings settings, ShardStores opened,
      UnaryOperator<OrderedStore> storeWrapper, TopicRouter router, LocalTopics localTopics, LogMetrics logMetrics,
      Consumer<Throwable> replicaFailed) {
    boolean clustered = settings.cluster().enabled();
    List<OrderedStore> stores = opened.stores();
    int count = stores.size();
    Map<Integer, RaftEventLog> raft = new ConcurrentHashMap<>();
    List<ReplicaHost.Shard> held = new ArrayList<>();
    List<EventLog.AppliedListener> announcers = new ArrayList<>();
    for (int k = 0; k < count; k++) {
      announcers.add(stores.get(k) == null ? null : announcer(k, router, localTopics, clustered, raft));
      if (stores.get(k) != null) {
        held.add(new ReplicaHost.Shard(k, stores.get(k), opened.stateMachines().get(k), announcers.get(k),
            opened.placement() == null ? null : opened.placement().replicas(k)));
      }
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
    List<EventLog> local = new ArrayList<>();
    List<LogWriter> writers = new ArrayList<>();
    List<ShardLeadership> leaderships = new ArrayList<>();
    List<LogShards.Shard> shards = new ArrayList<>();
    for (int k = 0; k < count; k++) {
      OrderedStore store = stores.get(k);
      EventLog replica = store == null ? new NoReplica(k) : clustered ? raft.get(k)
          : new LocalEventLog(store, opened.stateMachines().get(k), settings.storage().fsync(),
              settings.storage().groupCommitMaxCommands(), unlimited, announcers.get(k), logMetrics::recordCommit);
      if (store != null && !clustered) {
        local.add(replica);
      }
      LeaderPlacement.Leadership leadership;
      if (clustered) {
        ShardLeadership followed = new ShardLeadership(raft.get(k));
        leaderships.add(followed);
        leadership = followed;
      } else {
        leadership = LeaderPlacement.Leadership.always(BrokerStateMachine.STANDALONE_TERM);
      }
      LogWriter writer = WritePath.start(system, settings, k, replica, leadership, writeLimit);
      if (store != null) {
        WritePath.bind(system, k, replica, writer, store);
      }
      writers.add(writer);
      shards.add(new LogShards.Shard(k, store, opened.stateMachines().get(k), writer));
    }
    ShardedLog log = new ShardedLog(system, settings, router, localTopics, storeWrapper,
        new LogShards(shards, settings.topic().bucketMs()), writers, leaderships, local, host);
    log.raft.putAll(raft);
    return log;
  }

  private static EventLog.AppliedListener announcer(int shard, TopicRouter router, LocalTopics localTopics,
      boolean clustered, Map<Integer, RaftEventLog> raft) {
    // The Raft logs are started with the announcers as their listeners, so each announcer asks its log through this.
    return new AppliedMessages(shard, new AppliedAnnouncer(router, localTopics, clustered,
        () -> !clustered || (raft.containsKey(shard) && raft.get(shard).leading())));
  }

  /** What the rest of the node is given: each shard's store and state machine (when held) and writer, as now. */
  LogShards shards() {
    return shards;
  }

  /** The Raft server and its replicas, or null standalone. */
  ReplicaHost host() {
    return host;
  }

  /** Tells {@code holding} of every replica this node takes up or gives up from now on. */
  void follow(Holding holding) {
    holdings.add(holding);
  }

  /**
   * Takes up a replica of {@code shard} (clustered): a new store, and a division that waits until a member of the
   * shard's group adds this node, then catches up; the shard's writer reads it, its placement follows its leadership,
   * the journal binds it, and the holdings are told.
   *
   * @throws IOException if the store cannot be opened or Ratis refuses the group
   */
  synchronized RaftEventLog takeUp(int shard) throws IOException {
    if (shards.get(shard).held()) {
      throw new IllegalStateException("this node holds log shard " + shard + " already");
    }
    OrderedStore store = ShardStores.openNew(settings, shard, storeWrapper);
    RaftEventLog replica;
    BrokerStateMachine state = new BrokerStateMachine(store, shards.bucketMs());
    try {
      replica = host.takeUp(new ReplicaHost.Shard(shard, store, state,
          announcer(shard, router, localTopics, true, raft), null));
    } catch (IOException | RuntimeException e) {
      store.close();
      throw e;
    }
    raft.put(shard, replica);
    LogWriter writer = writers.get(shard);
    writer.replica(replica);
    WritePath.bind(system, shard, replica, writer, store);
    leaderships.get(shard).follow(replica);
    LogShards.Shard held = new LogShards.Shard(shard, store, state, writer);
    shards.replace(held);
    holdings.forEach(h -> h.tookUp(held));
    return replica;
  }

  /**
   * Gives up this node's replica of {@code shard}, which its group should no longer count (removed from it): the
   * holdings are told first, and once {@code drained} completes (the topics hosted here have moved to other holders)
   * the node stops leading it, its division and Raft storage are removed and its store closed and deleted.
   */
  synchronized CompletableFuture<Void> giveUp(int shard, CompletableFuture<Void> drained) {
    LogShards.Shard held = shards.get(shard);
    if (!held.held()) {
      return CompletableFuture.failedFuture(new IllegalStateException("this node holds no replica of log shard "
          + shard));
    }
    holdings.forEach(h -> h.givingUp(shard));
    return drained.thenRun(() -> {
      synchronized (this) {
        leaderships.get(shard).follow(null);
        LogWriter writer = writers.get(shard);
        writer.replica(new NoReplica(shard));
        shards.replace(new LogShards.Shard(shard, null, null, writer));
        raft.remove(shard);
        try {
          host.giveUp(shard);
        } catch (IOException e) {
          throw new IllegalStateException("giving up log shard " + shard + " failed: " + e.getMessage(), e);
        } finally {
          held.store().close();
        }
        ShardStores.delete(settings, shard);
      }
      holdings.forEach(h -> h.gaveUp(shard));
    });
  }

  /** Whether this node's replica of {@code shard} is a voter of its group (standalone: whether it is held). */
  boolean voter(int shard) {
    if (!shards.get(shard).held()) {
      return false;
    }
    RaftEventLog replica = raft.get(shard);
    return host == null || (replica != null && replica.status().peers().containsKey(settings.cluster().nodeId()));
  }

  /** The Raft log of each shard this node holds, in shard order; empty standalone. */
  List<RaftEventLog> raft() {
    return host == null ? List.of() : host.logs();
  }

  /** Why some shard's replica has not caught up since start (the first such), or null when all have. */
  String behind() {
    List<RaftEventLog> logs = raft();
    for (RaftEventLog log : logs) {
      String behind = log.behind();
      if (behind != null) {
        return logs.size() == 1 ? behind : "log shard " + log.shard() + ": " + behind;
      }
    }
    return null;
  }

  /** Hands over every Raft leadership this node holds, all shards at once. */
  CompletableFuture<Void> handOverLeadership() {
    return CompletableFuture.allOf(raft().stream().map(RaftEventLog::handOverLeadership)
        .toArray(CompletableFuture[]::new));
  }

  /** Closes every held shard's log (clustered, then the Raft server they share). */
  void close() {
    if (host != null) {
      host.close();
      return;
    }
    for (int k = local.size() - 1; k >= 0; k--) {
      local.get(k).close();
    }
  }
}
