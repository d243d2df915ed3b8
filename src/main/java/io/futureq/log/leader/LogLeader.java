package io.futureq.log.leader;

import io.futureq.log.CommandResult;
import io.futureq.log.CommandResultCodec;
import io.futureq.log.LogClosedException;
import io.futureq.log.LogRejectedException;
import io.futureq.log.LogUnavailableException;
import io.futureq.log.proto.ApplyResults;
import io.futureq.log.proto.LogEntry;
import io.futureq.log.raft.LeaderDiskAcks;
import io.futureq.serialization.CborSerializable;
import io.futureq.storage.StorageException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.RecoveryCompleted;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;

/**
 * The write leader of the design card: the one actor that puts commands into the log, each {@link Write} as one
 * event persisted through the FutureQ journal ({@code futureq.journal}), where one event is one log entry (one
 * fsynced RocksDB batch standalone, one Raft entry in a cluster).
 *
 * <p>Its event <em>is</em> the log entry: the journal does not store it again, it appends it as a
 * {@code LeaderEntry} carrying the event's sequence number, and the state machine applies it on every replica only
 * if that number follows the last one applied (fencing: a stale leader's entry is rejected, the same way
 * everywhere). So the only state a leader recovers is the highest sequence number, which the state machine keeps
 * as replicated state; replays carry no events.
 *
 * <p>Pekko Persistence allows one write in flight per persistent actor; group commit happens before the leader:
 * each node's {@link WriteBatcher} gathers what its writers appended while its last {@link Write} was in flight.
 * A fenced write is answered {@link Fenced} (its writer may send it again) and the leader continues after the number
 * the log applied; a write the log failed is answered {@link Failed}.
 */
public final class LogLeader {
  /**
   * How writers find the leader (clustered: the one on the Raft leader's node). Names order the leaders listed at
   * once during a handover: see {@link LeaderPlacement}.
   */
  public static final ServiceKey<Command> SERVICE_KEY = ServiceKey.create(Command.class, "futureq-log-leader");
  /** The journal special-cases this persistence id: its events are log entries, not journal rows. */
  public static final String PERSISTENCE_ID = "futureq-log-leader";

  /** What the leader accepts. */
  public sealed interface Command extends CborSerializable {}

  /**
   * Persist {@code commands} as one log entry, atomically, and tell {@code replyTo} what applying them did; the
   * answer carries {@code id}, so that a writer can tell it from a late answer to an earlier write. {@code writer}
   * names the writer (one name per incarnation, whose ids only grow): the same write sent again, to this leader
   * or another, is applied once.
   */
  public record Write(String writer, long id, LogEntry commands, ActorRef<WriteOutcome> replyTo,
      ActorRef<OnLeaderDisk> onLeaderDisk) implements Command {
    public Write {
      Objects.requireNonNull(writer, "writer");
      Objects.requireNonNull(commands, "commands");
      Objects.requireNonNull(replyTo, "replyTo");
    }

    /** A write whose writer needs no {@link OnLeaderDisk}. */
    public Write(String writer, long id, LogEntry commands, ActorRef<WriteOutcome> replyTo) {
      this(writer, id, commands, replyTo, null);
    }
  }

  /**
   * Told to {@link Write#onLeaderDisk()} (when set) before the outcome, once the Raft leader's log on this node has
   * the write's entry on disk, before a majority has it: the entry's index and the first slot of the write's new
   * messages ({@link io.futureq.log.EventIds}). Not told standalone, nor while this node's replica does not lead.
   */
  public record OnLeaderDisk(long writeId, long logIndex, int firstSlot) implements CborSerializable {}

  /**
   * This node's replica no longer leads the Raft group: persist nothing more, and answer every later write
   * {@link NotLeading}, until stopped. Sent by {@link LeaderPlacement}.
   */
  public record Resign() implements Command {}

  /** How a {@link Write} ended. */
  public sealed interface WriteOutcome extends CborSerializable {
    /** The {@link Write#id()} answered. */
    long writeId();
  }

  /** Applied: one result per command, in order. */
  public record Written(long writeId, ApplyResults results) implements WriteOutcome {}

  /** Not applied anywhere: a leader with a later sequence number wrote first. Resending it is safe. */
  public record Fenced(long writeId, long sequenceNr, long appliedSequenceNr) implements WriteOutcome {}

  /** Not persisted: this leader resigned (its replica no longer leads). Resending it to the new leader is safe. */
  public record NotLeading(long writeId) implements WriteOutcome {}

  /**
   * Applied before, when its writer sent it to an earlier leader that did not answer: not applied again, and its
   * results are not known here.
   */
  public record AlreadyApplied(long writeId) implements WriteOutcome {}

  /**
   * The log failed the entry, for the reason {@code kind} names. Standalone nothing of it was applied; in a cluster
   * it may still be (a Raft timeout), so it is never resent.
   */
  public record Failed(long writeId, String reason, FailureKind kind) implements WriteOutcome {
    /** The failure as the log raised it, so callers map it to the same gRPC status as before. */
    public Throwable toException() {
      switch (kind) {
        case STORAGE: return new StorageException(reason, null);
        case REJECTED: return new LogRejectedException(reason, null);
        case INVALID: return new IllegalArgumentException(reason);
        case CLOSED: return new LogClosedException();
        case TIMEOUT: return new TimeoutException(reason);
        default: return new LogUnavailableException(reason, null);
      }
    }
  }

  /** The kinds of log failure a writer tells apart. */
  public enum FailureKind { STORAGE, REJECTED, INVALID, CLOSED, TIMEOUT, UNAVAILABLE }

  /**
   * The event: the entry, and the channel by which the journal hands back what the state machine did with it
   * (Pekko's journal API returns only success or an exception per write, not results). The outcome is not part of
   * the durable event and never serialized: the journal writes only the entry.
   */
  public record EntryPersisted(long leaderSequenceNr, String writer, long writeId, LogEntry commands,
      CompletableFuture<CommandResult.LeaderEntryApplied> outcome) {
    public EntryPersisted {
      Objects.requireNonNull(commands, "commands");
      Objects.requireNonNull(outcome, "outcome");
    }
  }

  /** The leader's state: how many entries it persisted since it recovered (its sequence number is the log's). */
  public record State(long persisted) {}

  /**
   * @param restartBackoff least pause before a leader that was fenced or failed recovers again
   */
  public static Behavior<Command> create(Duration restartBackoff) {
    return create(restartBackoff, null);
  }

  /** @param diskAcks this node's Raft replica's, for {@link OnLeaderDisk}; null standalone */
  public static Behavior<Command> create(Duration restartBackoff, LeaderDiskAcks diskAcks) {
    return Behaviors.supervise(Behaviors.<Command>setup(ctx -> new Persistent(ctx, restartBackoff, diskAcks)))
        .onFailure(SupervisorStrategy.restartWithBackoff(restartBackoff, restartBackoff.multipliedBy(20), 0.2));
  }

  /** The outcome of an entry the journal reported on, as the answer to write {@code id}. */
  static WriteOutcome outcomeOf(long id, CommandResult.LeaderEntryApplied applied, Throwable failure) {
    if (failure != null) {
      return new Failed(id, String.valueOf(failure.getMessage()), kindOf(failure));
    }
    if (applied.fenced()) {
      return new Fenced(id, applied.sequenceNr(), applied.appliedSequenceNr());
    }
    if (applied.alreadyApplied()) {
      return new AlreadyApplied(id);
    }
    return new Written(id, CommandResultCodec.encode(applied.results()));
  }

  private static FailureKind kindOf(Throwable failure) {
    if (failure instanceof StorageException) {
      return FailureKind.STORAGE;
    } else if (failure instanceof LogRejectedException) {
      return FailureKind.REJECTED;
    } else if (failure instanceof IllegalArgumentException) {
      return FailureKind.INVALID;
    } else if (failure instanceof LogClosedException) {
      return FailureKind.CLOSED;
    } else if (failure instanceof TimeoutException) {
      return FailureKind.TIMEOUT;
    }
    return FailureKind.UNAVAILABLE;
  }

  private static final class Persistent extends EventSourcedBehavior<Command, EntryPersisted, State> {
    private final ActorContext<Command> ctx;
    /**
     * The leader sequence number of the next entry: the recovered one + 1, then one past each applied entry. A
     * refused entry (a disk error, no quorum) leaves it as it is, because the state machine did not take the number
     * (or, after a Raft timeout, may take it later, and then the next entry is fenced); a fenced entry moves it past
     * the number the log applied. Set when the journal completes an outcome, which is before it confirms the write
     * and so before the next command is handled.
     */
    private final AtomicLong next = new AtomicLong();
    /** Set by {@link Resign}; never cleared (a node that leads again gets a new leader, with a new name). */
    private boolean resigned;

    private final LeaderDiskAcks diskAcks;

    Persistent(ActorContext<Command> ctx, Duration restartBackoff, LeaderDiskAcks diskAcks) {
      super(PersistenceId.ofUniqueId(PERSISTENCE_ID),
          SupervisorStrategy.restartWithBackoff(restartBackoff, restartBackoff.multipliedBy(20), 0.2));
      this.ctx = ctx;
      this.diskAcks = diskAcks;
    }

    @Override
    public State emptyState() {
      return new State(0);
    }

    @Override
    public CommandHandler<Command, EntryPersisted, State> commandHandler() {
      return newCommandHandlerBuilder().forAnyState()
          .onCommand(Write.class, this::onWrite)
          .onCommand(Resign.class, this::onResign)
          .build();
    }

    /** Handled after the write in flight (Pekko stashes commands meanwhile), so nothing persists after it. */
    private org.apache.pekko.persistence.typed.javadsl.Effect<EntryPersisted, State> onResign(State state,
        Resign resign) {
      resigned = true;
      return Effect().none();
    }

    /** The reply goes when the journal completes the outcome: after the entry was applied, or failed or fenced. */
    private org.apache.pekko.persistence.typed.javadsl.Effect<EntryPersisted, State> onWrite(State state,
        Write write) {
      if (resigned) {
        write.replyTo().tell(new NotLeading(write.id()));
        return Effect().none();
      }
      long sequenceNr = next.get();
      EntryPersisted event = new EntryPersisted(sequenceNr, write.writer(), write.id(), write.commands(),
          new CompletableFuture<>());
      if (write.onLeaderDisk() != null && diskAcks != null) {
        // Asked before the entry is appended, so the log cannot reach disk before anyone listens.
        diskAcks.await(sequenceNr).thenAccept(at ->
            write.onLeaderDisk().tell(new OnLeaderDisk(write.id(), at.logIndex(), at.firstSlot())));
      }
      event.outcome().whenComplete((applied, failure) -> {
        if (diskAcks != null) {
          diskAcks.forget(sequenceNr);
        }
        if (failure == null) {
          next.set(applied.appliedSequenceNr() + 1);
        }
        write.replyTo().tell(outcomeOf(write.id(), applied, failure));
      });
      return Effect().persist(event);
    }

    /** The journal's highest sequence number for this id is the state machine's: continue after it. */
    @Override
    public SignalHandler<State> signalHandler() {
      return newSignalHandlerBuilder().onSignal(RecoveryCompleted.instance(),
          state -> {
            next.set(lastSequenceNumber(ctx) + 1);
            ctx.getLog().info("Write leader {} recovered: its first entry is number {}", ctx.getSelf().path().name(),
                next.get());
          }).build();
    }

    @Override
    public EventHandler<State, EntryPersisted> eventHandler() {
      return newEventHandlerBuilder().forAnyState()
          .onEvent(EntryPersisted.class, (state, event) -> new State(state.persisted() + 1)).build();
    }
  }

  private LogLeader() {}
}
