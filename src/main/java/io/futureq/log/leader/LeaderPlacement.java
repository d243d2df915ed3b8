package io.futureq.log.leader;

import io.futureq.log.raft.LeaderDiskAcks;
import java.time.Duration;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.receptionist.Receptionist;

/**
 * Runs this node's {@link LogLeader} while this node's replica leads the Raft group, and only then: told
 * {@link Lead} by the replica's leader changes (standalone, once at start), it spawns a leader named after the
 * term, {@code leader-<term, 19 digits>-<n>}, and registers it with the receptionist; told {@link Follow}, it makes
 * that leader resign (later writes are answered {@link LogLeader.NotLeading}) and stops it after a grace period,
 * so that writers who still list it are told to go elsewhere instead of timing out.
 *
 * <p>Following Raft instead of electing a leader of its own (a Cluster Singleton) leaves one election, with Raft's
 * failure detector; the names let every writer prefer the leader of the latest term while the receptionist still
 * lists an old one (it lists a crashed node's until that node is removed). Two leaders at once are safe: the state
 * machine fences the one whose sequence numbers are stale.
 */
public final class LeaderPlacement extends AbstractBehavior<LeaderPlacement.Command> {

  /** What the placement accepts; local only (told by the Raft replica's callbacks). */
  public sealed interface Command {}

  /** This node's replica leads in {@code term}. */
  public record Lead(long term) implements Command {}

  /** This node's replica does not lead (another does, or none is known). */
  public record Follow() implements Command {}

  private record Retire(ActorRef<LogLeader.Command> leader) implements Command {}

  /**
   * @param restartBackoff least pause before a leader that was fenced or failed recovers again
   * @param resignGrace how long a resigned leader keeps answering {@link LogLeader.NotLeading} before it stops
   */
  public static Behavior<Command> create(Duration restartBackoff, Duration resignGrace) {
    return create(restartBackoff, resignGrace, null);
  }

  /** @param diskAcks this node's Raft replica's, for {@link LogLeader.OnLeaderDisk}; null standalone */
  public static Behavior<Command> create(Duration restartBackoff, Duration resignGrace, LeaderDiskAcks diskAcks) {
    return Behaviors.setup(ctx -> new LeaderPlacement(ctx, restartBackoff, resignGrace, diskAcks));
  }

  /** The name of the leader of {@code term}; names sort by term, then by the order of spawning on one node. */
  static String leaderName(long term, long incarnation) {
    return String.format("leader-%019d-%d", term, incarnation);
  }

  private final Duration restartBackoff;
  private final Duration resignGrace;
  private final LeaderDiskAcks diskAcks;
  private ActorRef<LogLeader.Command> current;
  private long currentTerm = -1;
  private long incarnations;

  private LeaderPlacement(ActorContext<Command> ctx, Duration restartBackoff, Duration resignGrace,
      LeaderDiskAcks diskAcks) {
    super(ctx);
    this.diskAcks = diskAcks;
    this.restartBackoff = restartBackoff;
    this.resignGrace = resignGrace;
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Lead.class, this::onLead)
        .onMessage(Follow.class, f -> {
          resign();
          return this;
        })
        .onMessage(Retire.class, r -> {
          getContext().stop(r.leader());
          return this;
        })
        .build();
  }

  private Behavior<Command> onLead(Lead lead) {
    if (current != null && currentTerm == lead.term()) {
      return this;
    }
    resign();
    current = getContext().spawn(LogLeader.create(restartBackoff, diskAcks), leaderName(lead.term(), incarnations++));
    currentTerm = lead.term();
    getContext().getSystem().receptionist().tell(Receptionist.register(LogLeader.SERVICE_KEY, current));
    getContext().getLog().info("This node's write leader {} runs for Raft term {}", current.path().name(),
        lead.term());
    return this;
  }

  private void resign() {
    if (current == null) {
      return;
    }
    current.tell(new LogLeader.Resign());
    getContext().getSystem().receptionist().tell(Receptionist.deregister(LogLeader.SERVICE_KEY, current));
    getContext().scheduleOnce(resignGrace, getContext().getSelf(), new Retire(current));
    getContext().getLog().info("This node's write leader {} resigns (Raft term {} is over here)",
        current.path().name(), currentTerm);
    current = null;
    currentTerm = -1;
  }
}
