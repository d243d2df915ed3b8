package io.futureq.app;

import io.futureq.config.BrokerSettings;
import io.futureq.journal.JournalBackend;
import io.futureq.log.EventLog;
import io.futureq.log.WriteQueueLimit;
import io.futureq.log.leader.LogLeader;
import io.futureq.log.leader.LogWriter;
import io.futureq.log.leader.WriteBatcher;
import io.futureq.storage.OrderedStore;
import java.time.Duration;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.receptionist.Receptionist;

/**
 * Puts the write leader in front of the log: this node's {@link WriteBatcher} and {@link LogWriter} (what every
 * writer is given), the journal binding, and, standalone, the {@link LogLeader} itself.
 */
final class WritePath {
  /** Least pause before a fenced or failed leader recovers again; it backs off to twenty times that. */
  static final Duration LEADER_RESTART_BACKOFF = Duration.ofMillis(50);
  /** How often a fenced write goes again (to a new leader) before its appends fail. */
  static final int MAX_RESENDS = 10;

  private WritePath() {}

  /**
   * @param log this node's log, which only the leader appends to (and the journal's recovery barriers)
   * @param limit what may wait for the leader; appends beyond fail with {@link io.futureq.log.LogOverloadedException}
   * @return the log every writer on this node is given
   */
  static LogWriter standalone(ActorSystem<?> system, BrokerSettings settings, EventLog log, OrderedStore store,
      WriteQueueLimit limit) {
    long maxEntryBytes = settings.storage().maxQueuedBytes();
    Duration timeout = settings.api().requestTimeout();
    ActorRef<WriteBatcher.Command> batcher = system.systemActorOf(WriteBatcher.create(
        settings.storage().groupCommitMaxCommands(), maxEntryBytes, timeout, MAX_RESENDS), "log-writer",
        Props.empty());
    LogWriter writer = new LogWriter(log, batcher, limit, Long.MAX_VALUE, timeout);
    JournalBackend.get(system).bind(log, writer, store);
    ActorRef<LogLeader.Command> leader = system.systemActorOf(LogLeader.create(LEADER_RESTART_BACKOFF),
        "log-leader", Props.empty());
    system.receptionist().tell(Receptionist.register(LogLeader.SERVICE_KEY, leader));
    return writer;
  }
}
