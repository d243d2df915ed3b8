package io.futureq.log.leader;

import io.futureq.log.CommandResult;
import io.futureq.log.CommandResultCodec;
import io.futureq.log.EventIds;
import io.futureq.log.EventLog.LeaderAck;
import io.futureq.log.Failures;
import io.futureq.log.LogUnavailableException;
import io.futureq.log.proto.ApplyResults;
import io.futureq.log.proto.LogCommand;
import io.futureq.serialization.CborSerializable;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.Effect;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;

/**
 * The write leader of the design card: the one actor that puts commands into the log, on the node whose Raft replica
 * leads (standalone: the only node). Its events are the log commands themselves ({@code StoreBatch},
 * {@code DeleteBatch}, ...), persisted through the FutureQ journal, whose storage is the log: everything that
 * arrived while the previous persist was on its way is the next persist, one AtomicWrite, which the journal appends
 * as one log entry (one Raft entry, or one fsynced batch standalone). That is the write path's one group commit.
 *
 * <p>A persist is confirmed once the entry is durable (committed by a majority, or fsynced) and applied on this
 * node; each writer is answered with its command's result from that local apply, in memory, by the thread that
 * applied it (before the confirmation reaches this actor). Each Raft term has
 * a leader of its own, whose persistence id names the term: the state machine applies an entry only if its term is
 * the term of the log entry holding it, so a leader whose term is over gets nothing applied (the one fence). If the
 * log fails or fences an entry, the leader stops, failing the writers of that entry (outcome unknown, or not
 * applied) and of those waiting (not applied); its placement starts another while its node leads.
 */
public final class LogLeader extends EventSourcedBehavior<LogLeader.Command, LogCommand, LogLeader.State> {
  /** How writers find shard 0's leader; names order the leaders listed at once during a handover (see placement). */
  public static final ServiceKey<Command> SERVICE_KEY = serviceKey(0);
  /**
   * The persistence id of shard 0's leader of term T is this prefix and T, shard n's this prefix, {@code s<n>-} and
   * T; the journal special-cases those ids.
   */
  public static final String PERSISTENCE_ID_PREFIX = "futureq-log-leader-";

  /** What the leader accepts. */
  public sealed interface Command {}

  /**
   * A command of a writer on this node: {@code result} completes with what applying it did, {@code onLeaderDisk}
   * (when set) with where it is once the leader's log has it on disk ({@code ACK_LEVEL_LEADER}). Local only: a
   * node's {@link WriteRouter} takes it from the node's writers and hands it to a leader of the same node as it is.
   */
  public record Append(LogCommand command, int bytes, CompletableFuture<CommandResult> result,
      CompletableFuture<LeaderAck> onLeaderDisk) implements Command, WriteRouter.Command {
    public Append {
      Objects.requireNonNull(command, "command");
      Objects.requireNonNull(result, "result");
    }
  }

  /** A command of a writer on another node, answered to {@code replyTo} under {@code id}. */
  public record Forward(long id, LogCommand command, int bytes, boolean wantsLeaderDisk,
      ActorRef<Forwarded> replyTo) implements Command, CborSerializable {
    public Forward {
      Objects.requireNonNull(command, "command");
      Objects.requireNonNull(replyTo, "replyTo");
    }
  }

  /** This node's replica no longer leads: persist nothing more, and stop once the write on its way is answered. */
  public record Resign() implements Command {}

  private record Flush() implements Command {}

  /** The answers to a {@link Forward}. */
  public sealed interface Forwarded extends CborSerializable {
    long id();
  }

  /** Applied: the command's result. */
  public record ForwardApplied(long id, ApplyResults result) implements Forwarded {}

  /** On the leader's disk, before a majority has it: where its new messages are ({@link EventIds}). */
  public record ForwardOnLeaderDisk(long id, long logIndex, int firstSlot) implements Forwarded {}

  /** Failed, as {@link WriteFailure} says. */
  public record ForwardFailed(long id, WriteFailure failure) implements Forwarded {}

  /** The leader's state: the Raft term it writes in, which fences its entries. Raft's log is the record. */
  public record State(long term) {}

  /** How writers find the leaders of log shard {@code shard}. */
  public static ServiceKey<Command> serviceKey(int shard) {
    return ServiceKey.create(Command.class, shard == 0 ? "futureq-log-leader" : "futureq-log-leader-s" + shard);
  }

  /** The persistence id of the leader of {@code term} of log shard {@code shard}. */
  static String persistenceIdOf(int shard, long term) {
    return PERSISTENCE_ID_PREFIX + (shard == 0 ? "" : "s" + shard + "-") + term;
  }

  /** The term a leader's persistence id names, or -1 for any other id. */
  public static long termOf(String persistenceId) {
    if (!persistenceId.startsWith(PERSISTENCE_ID_PREFIX)) {
      return -1;
    }
    String rest = persistenceId.substring(PERSISTENCE_ID_PREFIX.length());
    if (rest.startsWith("s") && rest.indexOf('-') > 0) {
      rest = rest.substring(rest.indexOf('-') + 1);
    }
    try {
      return Long.parseLong(rest);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** The log shard a leader's persistence id names (0 for any id that names none). */
  public static int shardOf(String persistenceId) {
    String rest = persistenceId.startsWith(PERSISTENCE_ID_PREFIX)
        ? persistenceId.substring(PERSISTENCE_ID_PREFIX.length()) : "";
    if (!rest.startsWith("s") || rest.indexOf('-') < 0) {
      return 0;
    }
    try {
      return Integer.parseInt(rest.substring(1, rest.indexOf('-')));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /** The leader of log shard 0; see {@link #create(int, long, int, long)}. */
  public static Behavior<Command> create(long term, int maxCommands, long maxBytes) {
    return create(0, term, maxCommands, maxBytes);
  }

  /**
   * @param shard the log shard it writes to
   * @param term the Raft term this leader writes in (standalone {@code BrokerStateMachine.STANDALONE_TERM})
   * @param maxCommands most commands in one persist
   * @param maxBytes most bytes of commands in one persist (a command larger than that goes alone)
   */
  public static Behavior<Command> create(int shard, long term, int maxCommands, long maxBytes) {
    return Behaviors.setup(ctx -> new LogLeader(ctx, shard, term, maxCommands, maxBytes));
  }

  private final ActorContext<Command> ctx;
  private final long term;
  private final LeaderWrites writes;
  private final int maxCommands;
  private final long maxBytes;
  /** Appends not persisted yet; the next persist takes them in order. */
  private final Deque<Append> waiting = new ArrayDeque<>();
  /** The appends of the persist on its way, and what it waits for. */
  private List<Append> persisting = List.of();
  private LeaderWrites.Pending inFlight;
  private boolean flushScheduled;

  private LogLeader(ActorContext<Command> ctx, int shard, long term, int maxCommands, long maxBytes) {
    super(PersistenceId.ofUniqueId(persistenceIdOf(shard, term)));
    this.ctx = ctx;
    this.term = term;
    this.writes = LeaderWrites.get(ctx.getSystem());
    this.maxCommands = maxCommands;
    this.maxBytes = maxBytes;
  }

  @Override
  public State emptyState() {
    return new State(term);
  }

  @Override
  public CommandHandler<Command, LogCommand, State> commandHandler() {
    return newCommandHandlerBuilder().forAnyState()
        .onCommand(Append.class, (state, append) -> onAppend(append))
        .onCommand(Forward.class, (state, forward) -> onAppend(appendOf(forward)))
        .onCommand(Flush.class, (state, flush) -> onFlush())
        .onCommand(Resign.class, (state, resign) -> onResign())
        .build();
  }

  /**
   * Appends wait for the next persist. Pekko stashes commands while a persist is on its way and hands them over
   * once it is confirmed, before the flush they schedule, so each persist takes all that came meanwhile.
   */
  private Effect<LogCommand, State> onAppend(Append append) {
    waiting.add(append);
    if (!flushScheduled) {
      flushScheduled = true;
      ctx.getSelf().tell(new Flush());
    }
    return Effect().none();
  }

  private Effect<LogCommand, State> onFlush() {
    flushScheduled = false;
    List<Append> batch = nextBatch();
    if (batch.isEmpty()) {
      return Effect().none();
    }
    List<LogCommand> events = new ArrayList<>(batch.size());
    batch.forEach(append -> events.add(append.command()));
    inFlight = new LeaderWrites.Pending(new CompletableFuture<>(), onLeaderDisk(batch));
    persisting = batch;
    // Each writer is answered by the thread that applied the entry, the moment it is durable and applied here: the
    // persist's confirmation takes three more hand-offs (the journal's future, its resequencer, this mailbox), which
    // only the next persist needs to wait for. A fenced entry answers no one here: the leader stops (PostStop).
    inFlight.applied().thenAccept(applied -> {
      if (!applied.fenced()) {
        answer(batch, applied);
      }
    });
    writes.expect(persistenceId().id(), inFlight);
    return Effect().persist(events).thenRun(state -> onPersisted());
  }

  /** Confirmed (its writers were answered as it was applied): what came meanwhile goes next. */
  private void onPersisted() {
    persisting = List.of();
    inFlight = null;
    if (!waiting.isEmpty() && !flushScheduled) {
      flushScheduled = true;
      ctx.getSelf().tell(new Flush());
    }
  }

  private static void answer(List<Append> batch, CommandResult.LeaderEntryApplied applied) {
    List<CommandResult> results = applied.results();
    for (int i = 0; i < batch.size(); i++) {
      batch.get(i).result().complete(results.get(i));
    }
  }

  private Effect<LogCommand, State> onResign() {
    ctx.getLog().info("Write leader {} resigns: Raft term {} is over on this node", ctx.getSelf().path().name(), term);
    return Effect().stop();
  }

  /**
   * One disk answer for the entry, split among the appends that asked: each one's new messages start where the
   * messages of the commands before it end.
   */
  private static CompletableFuture<LeaderAck> onLeaderDisk(List<Append> batch) {
    if (batch.stream().noneMatch(append -> append.onLeaderDisk() != null)) {
      return null;
    }
    CompletableFuture<LeaderAck> entry = new CompletableFuture<>();
    entry.thenAccept(at -> {
      int slot = at.firstSlot();
      for (Append append : batch) {
        if (append.onLeaderDisk() != null) {
          append.onLeaderDisk().complete(new LeaderAck(at.logIndex(), slot));
        }
        slot += EventIds.slotsOf(append.command());
      }
    });
    return entry;
  }

  private List<Append> nextBatch() {
    List<Append> batch = new ArrayList<>();
    long bytes = 0;
    while (!waiting.isEmpty() && batch.size() < maxCommands) {
      Append next = waiting.peekFirst();
      if (next.result().isDone()) {
        waiting.pollFirst(); // its writer gave up waiting: it is not written
        continue;
      }
      if (!batch.isEmpty() && bytes + next.bytes() > maxBytes) {
        break;
      }
      batch.add(waiting.pollFirst());
      bytes += next.bytes();
    }
    return batch;
  }

  /** A forwarded command as an append whose answers go back to the node it came from. */
  private static Append appendOf(Forward forward) {
    CompletableFuture<CommandResult> result = new CompletableFuture<>();
    result.whenComplete((applied, failure) -> forward.replyTo().tell(failure == null
        ? new ForwardApplied(forward.id(), CommandResultCodec.encode(List.of(applied)))
        : new ForwardFailed(forward.id(), WriteFailure.of(failure))));
    CompletableFuture<LeaderAck> onDisk = null;
    if (forward.wantsLeaderDisk()) {
      onDisk = new CompletableFuture<>();
      onDisk.thenAccept(at -> forward.replyTo().tell(new ForwardOnLeaderDisk(forward.id(), at.logIndex(),
          at.firstSlot())));
    }
    return new Append(forward.command(), forward.bytes(), result, onDisk);
  }

  /**
   * Stopped (resigned, or the log failed or fenced its entry): the writers of the entry on its way learn what the
   * log said; those still waiting were not written. Commands Pekko still held go to dead letters, and the writers'
   * routers, which watch this leader, fail them.
   */
  @Override
  public SignalHandler<State> signalHandler() {
    return newSignalHandlerBuilder().onSignal(PostStop.instance(), state -> {
      if (inFlight != null && appliedWhole(inFlight)) {
        answer(persisting, inFlight.applied().join()); // applied, though the confirmation did not reach this leader
      }
      Throwable failure = entryFailure();
      persisting.forEach(append -> append.result().completeExceptionally(failure));
      waiting.forEach(append -> append.result().completeExceptionally(new LogUnavailableException(
          "the write leader of Raft term " + term + " stopped before writing this command; it was not applied",
          null)));
    }).build();
  }

  private static boolean appliedWhole(LeaderWrites.Pending pending) {
    CompletableFuture<CommandResult.LeaderEntryApplied> applied = pending.applied();
    return applied.isDone() && !applied.isCompletedExceptionally() && !applied.join().fenced();
  }

  private Throwable entryFailure() {
    if (inFlight == null) {
      return null;
    }
    CompletableFuture<CommandResult.LeaderEntryApplied> applied = inFlight.applied();
    if (applied.isCompletedExceptionally()) {
      return Failures.cause(applied.handle((r, e) -> e).join());
    }
    if (applied.isDone() && applied.join().fenced()) {
      return new LogUnavailableException("the write leader's Raft term " + term + " is over: the entry was not "
          + "applied", null);
    }
    return new LogUnavailableException("the write leader stopped before its entry was answered; it may still be "
        + "applied", null);
  }

  @Override
  public EventHandler<State, LogCommand> eventHandler() {
    return newEventHandlerBuilder().forAnyState().onAnyEvent((state, event) -> state);
  }
}
