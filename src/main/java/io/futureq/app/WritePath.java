package io.futureq.app;

import io.futureq.config.BrokerSettings;
import io.futureq.journal.JournalBackend;
import io.futureq.log.BrokerStateMachine;
import io.futureq.log.EventLog;
import io.futureq.log.WriteQueueLimit;
import io.futureq.log.leader.LeaderPlacement;
import io.futureq.log.leader.LogLeader;
import io.futureq.log.leader.LogWriter;
import io.futureq.log.leader.WriteRouter;
import io.futureq.log.raft.RaftEventLog;
import io.futureq.storage.OrderedStore;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Puts a write leader in front of each log shard: this node's {@link WriteRouter} and {@link LogWriter} of the shard
 * (what every writer of its topics is given), the journal binding, and the {@link LeaderPlacement} that runs this
 * node's {@link LogLeader} of the shard while it leads: always standalone, while its Raft replica of the shard leads
 * in a cluster.
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
   * @param shard the log shard
   * @param log this node's replica of that shard's log, which only its leader appends to (and the replica's barriers)
   * @param raft the same log when clustered (its leader changes place the leader), else null
   * @param store the store that log applies to, or null when this node holds no replica of the shard: then it has
   *     only the router, and its writes go to the shard's leader on another node
   * @param limit what may wait for the shard's leader; appends beyond fail with
   *     {@link io.futureq.log.LogOverloadedException}
   * @return the log every writer of the shard's topics on this node is given
   */
  static LogWriter start(ActorSystem<Guardian.Command> system, BrokerSettings settings, int shard, EventLog log,
      RaftEventLog raft, OrderedStore store, WriteQueueLimit limit) {
    // Clustered, a write crosses remoting and becomes one Raft entry: it must fit both.
    long maxCommandBytes = !settings.cluster().enabled() ? Long.MAX_VALUE
        : settings.raft().maxEntryBytes() - ENTRY_OVERHEAD_BYTES;
    long maxWriteBytes = Math.min(settings.storage().maxQueuedBytes(), maxCommandBytes);
    ActorRef<WriteRouter.Command> router = Guardian.start(system, routerName(shard), WriteRouter.create(shard),
        Guardian.OnFailure.RESTART);
    LogWriter writer = new LogWriter(log, router, limit, maxCommandBytes, settings.api().requestTimeout());
    if (store == null) {
      return writer;
    }
    JournalBackend.get(system).bind(shard, log, writer, store);
    LeaderPlacement.Leadership leadership = raft == null
        ? LeaderPlacement.Leadership.always(BrokerStateMachine.STANDALONE_TERM) : raft::onLeadership;
    Guardian.start(system, placementName(shard), LeaderPlacement.create(leadership, shard,
        settings.storage().groupCommitMaxCommands(), maxWriteBytes), Guardian.OnFailure.RESTART);
    return writer;
  }
}
