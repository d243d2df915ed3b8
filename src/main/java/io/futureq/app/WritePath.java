package io.futureq.app;

import io.futureq.config.BrokerSettings;
import io.futureq.journal.JournalBackend;
import io.futureq.log.EventLog;
import io.futureq.log.WriteQueueLimit;
import io.futureq.log.leader.LeaderLane;
import io.futureq.log.leader.LeaderPlacement;
import io.futureq.log.leader.LogLeader;
import io.futureq.log.leader.LogWriter;
import io.futureq.log.leader.WriteRouter;
import io.futureq.storage.OrderedStore;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Puts a write leader in front of each log shard: this node's {@link WriteRouter} and {@link LogWriter} of the shard
 * (what every writer of its topics is given), the journal binding, and the {@link LeaderPlacement} that runs this
 * node's {@link LogLeader} of the shard while it leads: always standalone, while its Raft replica of the shard leads
 * in a cluster (none while it holds no replica).
 */
final class WritePath {
  /** Room in a Raft entry for what wraps the writers' commands (the leader entry, the remoting envelope). */
  static final long ENTRY_OVERHEAD_BYTES = 64 * 1024;

  private WritePath() {}

  /** Where shard {@code shard}'s router lives: remoting sends its writes' answers on its large-message lane. */
  static String routerName(int shard) {
    return shard == 0 ? "log-writer" : "log-writer-s" + shard;
  }

  /** Where shard {@code shard}'s leaders live: remoting sends them writes on its large-message lane. */
  static String placementName(int shard) {
    return shard == 0 ? "log-leaders" : "log-leaders-s" + shard;
  }

  /**
   * Starts shard {@code shard}'s router, writer and leader placement: for every shard, held or not, as a node takes up
   * and gives up replicas while it runs ({@link #bind} and {@link ShardLeadership} follow that).
   *
   * @param replica this node's replica of the shard's log (which only its leader appends to, and the replica's
   *     barriers), or a {@link io.futureq.log.NoReplica} when it holds none: then its writes go to the shard's leader
   *     on another node
   * @param leadership whether this node leads the shard: always standalone, while its Raft replica leads clustered
   * @param limit what may wait for the shard's leader; appends beyond fail with
   *     {@link io.futureq.log.LogOverloadedException}
   * @return the log every writer of the shard's topics on this node is given
   */
  static LogWriter start(ActorSystem<Guardian.Command> system, BrokerSettings settings, int shard, EventLog replica,
      LeaderPlacement.Leadership leadership, WriteQueueLimit limit) {
    // Clustered, a write crosses remoting and becomes one Raft entry: it must fit both.
    long maxCommandBytes = !settings.cluster().enabled() ? Long.MAX_VALUE
        : settings.raft().maxEntryBytes() - ENTRY_OVERHEAD_BYTES;
    long maxWriteBytes = Math.min(settings.storage().maxQueuedBytes(), maxCommandBytes);
    LeaderLane lane = new LeaderLane();
    ActorRef<WriteRouter.Command> router = Guardian.start(system, routerName(shard), WriteRouter.create(shard, lane),
        Guardian.OnFailure.RESTART);
    LogWriter writer = new LogWriter(replica, router, lane, limit, maxCommandBytes, settings.api().requestTimeout());
    Guardian.start(system, placementName(shard), LeaderPlacement.create(leadership, shard,
        settings.storage().groupCommitMaxCommands(), maxWriteBytes), Guardian.OnFailure.RESTART);
    return writer;
  }

  /** Where shard {@code shard}'s leader journals while it runs here: this node's replica and store, once held. */
  static void bind(ActorSystem<?> system, int shard, EventLog replica, LogWriter writer, OrderedStore store) {
    JournalBackend.get(system).bind(shard, replica, writer, store);
  }
}
