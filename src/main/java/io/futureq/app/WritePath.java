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
 * Puts the write leader in front of the log: this node's {@link WriteRouter} and {@link LogWriter} (what every
 * writer is given), the journal binding, and the {@link LeaderPlacement} that runs this node's {@link LogLeader}
 * while it leads: always standalone, while its Raft replica leads in a cluster.
 */
final class WritePath {
  /** Room in a Raft entry for what wraps the writers' commands (the leader entry, the remoting envelope). */
  static final long ENTRY_OVERHEAD_BYTES = 64 * 1024;
  /** Where the router and the leaders live: remoting sends their writes and answers on its large-message lane. */
  static final String ROUTER_NAME = "log-writer";
  static final String PLACEMENT_NAME = "log-leaders";

  private WritePath() {}

  /**
   * @param log this node's log, which only the leader appends to (and the replicas' barriers)
   * @param raft the same log when clustered (its leader changes place the leader), else null
   * @param limit what may wait for the leader; appends beyond fail with {@link io.futureq.log.LogOverloadedException}
   * @return the log every writer on this node is given
   */
  static LogWriter start(ActorSystem<Guardian.Command> system, BrokerSettings settings, EventLog log, RaftEventLog raft,
      OrderedStore store, WriteQueueLimit limit) {
    // Clustered, a write crosses remoting and becomes one Raft entry: it must fit both.
    long maxCommandBytes = raft == null ? Long.MAX_VALUE : settings.raft().maxEntryBytes() - ENTRY_OVERHEAD_BYTES;
    long maxWriteBytes = Math.min(settings.storage().maxQueuedBytes(), maxCommandBytes);
    ActorRef<WriteRouter.Command> router = Guardian.start(system, ROUTER_NAME, WriteRouter.create(),
        Guardian.OnFailure.RESTART);
    LogWriter writer = new LogWriter(log, router, limit, maxCommandBytes, settings.api().requestTimeout());
    JournalBackend.get(system).bind(log, writer, store);
    LeaderPlacement.Leadership leadership = raft == null
        ? LeaderPlacement.Leadership.always(BrokerStateMachine.STANDALONE_TERM) : raft::onLeadership;
    Guardian.start(system, PLACEMENT_NAME, LeaderPlacement.create(leadership,
        settings.storage().groupCommitMaxCommands(), maxWriteBytes), Guardian.OnFailure.RESTART);
    return writer;
  }
}
