package io.futureq.log.leader;

import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.RecoveryCompleted;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;

/**
 * Recovers a throwaway persistent actor, on Pekko's in-memory journal, once when a node starts, and stops.
 * A node's first persistent actor is the write leader, recovering the moment the node became Raft leader, and
 * that first recovery took 0.5-0.8 s more than later ones (Pekko Persistence's code running cold): a quarter of
 * a failover's two seconds. This runs that code before it matters, without touching FutureQ's journal.
 */
public final class PersistenceWarmUp
    extends EventSourcedBehavior<PersistenceWarmUp.Command, PersistenceWarmUp.Event, PersistenceWarmUp.State> {
  /** Its only command, told to itself once recovered. */
  public sealed interface Command {}

  private record Stop() implements Command {}

  /** Never persisted. */
  public record Event() {}

  public record State() {}

  private static final String JOURNAL = "pekko.persistence.journal.inmem";
  private static final String SNAPSHOTS = "pekko.persistence.no-snapshot-store";

  private final ActorContext<Command> ctx;

  public static Behavior<Command> create() {
    return Behaviors.setup(PersistenceWarmUp::new);
  }

  private PersistenceWarmUp(ActorContext<Command> ctx) {
    super(PersistenceId.ofUniqueId("futureq-persistence-warm-up"));
    this.ctx = ctx;
  }

  @Override
  public String journalPluginId() {
    return JOURNAL;
  }

  @Override
  public String snapshotPluginId() {
    return SNAPSHOTS;
  }

  @Override
  public State emptyState() {
    return new State();
  }

  @Override
  public CommandHandler<Command, Event, State> commandHandler() {
    return newCommandHandlerBuilder().forAnyState().onCommand(Stop.class, (state, stop) -> Effect().stop()).build();
  }

  @Override
  public EventHandler<State, Event> eventHandler() {
    return newEventHandlerBuilder().forAnyState().onEvent(Event.class, (state, event) -> state).build();
  }

  @Override
  public SignalHandler<State> signalHandler() {
    return newSignalHandlerBuilder().onSignal(RecoveryCompleted.instance(), state -> ctx.getSelf().tell(new Stop()))
        .build();
  }
}
