package io.futureq.log.leader;

import io.futureq.log.CommandResult;
import io.futureq.log.EventLog.LeaderAck;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;

/**
 * How a {@link LogLeader} and the journal that persists its events meet in one JVM: Pekko's journal API carries
 * events and returns only success or an exception per write, while the leader answers its writers with what the
 * state machine did. So before each persist the leader leaves here what its write waits for ({@link Pending}), and
 * the journal takes it (by persistence id: Pekko has one write in flight per persistent actor) and completes it
 * from the local apply, before it confirms the write. One per actor system; nothing here is durable or crosses
 * nodes.
 */
public final class LeaderWrites implements Extension {
  /**
   * What one persist of a leader waits for: {@code applied} completes with the entry's results (or fenced, or the
   * log's failure); {@code onLeaderDisk}, when set, once the leader's own log has the entry on disk.
   */
  public record Pending(CompletableFuture<CommandResult.LeaderEntryApplied> applied,
      CompletableFuture<LeaderAck> onLeaderDisk) {
    public Pending {
      Objects.requireNonNull(applied, "applied");
    }
  }

  private final ConcurrentHashMap<String, Pending> byPersistenceId = new ConcurrentHashMap<>();

  private LeaderWrites() {}

  public static LeaderWrites get(ActorSystem<?> system) {
    return Id.INSTANCE.apply(system);
  }

  /** Called by the leader right before it persists. */
  void expect(String persistenceId, Pending pending) {
    byPersistenceId.put(persistenceId, pending);
  }

  /** Called by the journal as it writes the leader's events: what the write is awaited with, if anyone waits. */
  public Pending take(String persistenceId) {
    return byPersistenceId.remove(persistenceId);
  }

  private static final class Id extends ExtensionId<LeaderWrites> {
    private static final Id INSTANCE = new Id();

    @Override
    public LeaderWrites createExtension(ActorSystem<?> system) {
      return new LeaderWrites();
    }
  }
}
