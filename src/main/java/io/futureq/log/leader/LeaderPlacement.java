package io.futureq.log.leader;

import java.time.Duration;
import java.util.function.LongConsumer;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;

/**
 * Runs this node's {@link LogLeader} while this node's replica leads the Raft group, and only then: told
 * {@link Lead} by the replica's leader changes (standalone, once at start), it spawns a leader for the term, named
 * {@code leader-<term, 19 digits>-<n>}, and registers it with the receptionist; told {@link Follow}, it deregisters
 * that leader and tells it to resign. A leader that stops while its term still leads here (the log failed an entry)
 * is started again after a pause.
 *
 * <p>Following Raft instead of electing a leader of its own (a Cluster Singleton) leaves one election, with Raft's
 * failure detector; the names let every writer prefer the leader of the latest term while the receptionist still
 * lists an old one (it lists a crashed node's until that node is removed). Two leaders at once are safe: the state
 * machine applies an entry only in its leader's term.
 */
public final class LeaderPlacement extends AbstractBehavior<LeaderPlacement.Command> {
  /** How long a leader that stopped on a failure waits before it is started again. */
  static final Duration RESTART_PAUSE = Duration.ofMillis(100);

  /** What the placement accepts; local only (told by the Raft replica's callbacks). */
  public sealed interface Command {}

  /** This node's replica leads in {@code term}. */
  public record Lead(long term) implements Command {}

  /** This node's replica does not lead (another does, or none is known). */
  public record Follow() implements Command {}

  private record LeaderStopped(ActorRef<LogLeader.Command> leader) implements Command {}

  private record Restart(long term) implements Command {}

  /**
   * Where the placement learns whether this node leads: it tells {@code leads} the term or {@code follows} at once,
   * then at every change, and a later subscription replaces the earlier one ({@code RaftEventLog::onLeadership}).
   */
  @FunctionalInterface
  public interface Leadership {
    void onLeadership(LongConsumer leads, Runnable follows);

    /** A node of its own: it leads, always, in one term. */
    static Leadership always(long term) {
      return (leads, follows) -> leads.accept(term);
    }
  }

  /**
   * Subscribes to {@code leadership} as it starts, so a placement restarted after a failure learns anew whether
   * this node leads.
   *
   * @param maxCommands most commands in one persist of a leader
   * @param maxBytes most bytes of commands in one persist
   */
  public static Behavior<Command> create(Leadership leadership, int maxCommands, long maxBytes) {
    return create(leadership, 0, maxCommands, maxBytes);
  }

  /** As above, for the leaders of log shard {@code shard}. */
  public static Behavior<Command> create(Leadership leadership, int shard, int maxCommands, long maxBytes) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> {
      ActorRef<Command> self = ctx.getSelf();
      leadership.onLeadership(term -> self.tell(new Lead(term)), () -> self.tell(new Follow()));
      return new LeaderPlacement(ctx, timers, shard, maxCommands, maxBytes);
    }));
  }

  /** The name of the leader of {@code term}; names sort by term, then by the order of spawning on one node. */
  static String leaderName(long term, long incarnation) {
    return String.format("leader-%019d-%d", term, incarnation);
  }

  private final TimerScheduler<Command> timers;
  private final int shard;
  private final ServiceKey<LogLeader.Command> serviceKey;
  private final int maxCommands;
  private final long maxBytes;
  private ActorRef<LogLeader.Command> current;
  private long currentTerm = -1;
  private long incarnations;

  private LeaderPlacement(ActorContext<Command> ctx, TimerScheduler<Command> timers, int shard, int maxCommands,
      long maxBytes) {
    super(ctx);
    this.timers = timers;
    this.shard = shard;
    this.serviceKey = LogLeader.serviceKey(shard);
    this.maxCommands = maxCommands;
    this.maxBytes = maxBytes;
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Lead.class, this::onLead)
        .onMessage(Follow.class, follow -> {
          resign();
          currentTerm = -1;
          return this;
        })
        .onMessage(LeaderStopped.class, this::onLeaderStopped)
        .onMessage(Restart.class, restart -> {
          if (current == null && restart.term() == currentTerm) {
            spawn(currentTerm);
          }
          return this;
        })
        .build();
  }

  private Behavior<Command> onLead(Lead lead) {
    if (current != null && currentTerm == lead.term()) {
      return this;
    }
    resign();
    currentTerm = lead.term();
    spawn(lead.term());
    return this;
  }

  private void spawn(long term) {
    current = getContext().spawn(LogLeader.create(shard, term, maxCommands, maxBytes),
        leaderName(term, incarnations++));
    getContext().watchWith(current, new LeaderStopped(current));
    getContext().getSystem().receptionist().tell(Receptionist.register(serviceKey, current));
    getContext().getLog().info("This node's write leader {} of log shard {} runs for Raft term {}",
        current.path().name(), shard, term);
  }

  /** A leader of the term this node still leads in stopped on its own: the log failed its entry. */
  private Behavior<Command> onLeaderStopped(LeaderStopped stopped) {
    if (stopped.leader().equals(current)) {
      getContext().getLog().warn("This node's write leader {} stopped while Raft term {} leads here; another starts "
          + "in {} ms", current.path().name(), currentTerm, RESTART_PAUSE.toMillis());
      current = null;
      timers.startSingleTimer(new Restart(currentTerm), RESTART_PAUSE);
    }
    return this;
  }

  private void resign() {
    if (current == null) {
      return;
    }
    getContext().getSystem().receptionist().tell(Receptionist.deregister(serviceKey, current));
    current.tell(new LogLeader.Resign());
    current = null;
  }
}
