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
import org.apache.pekko.persistence.typed.javadsl.Effect;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;

/**
 * The write leader of the design card: the one actor that puts commands into the log, each {@link Write} as one
 * event persisted through the FutureQ journal ({@code futureq.journal}), where one event is one log command applied
 * atomically (written with whatever else the log commits at once: one fsynced RocksDB batch standalone, one Raft
 * entry in a cluster).
 *
 * <p>Its event <em>is</em> the log entry: the journal does not store it again, it appends it as a
 * {@code LeaderEntry} carrying the event's sequence number, and the state machine applies it on every replica only
 * if that number follows the last one applied (fencing: a stale leader's entry is rejected, the same way
 * everywhere). So the only state a leader recovers is the highest sequence number, which the state machine keeps
 * as replicated state; replays carry no events.
 *
 * <p>Pipelined: Pekko Persistence persists one event at a time, but the journal confirms the leader's event once
 * the log has it in order (queued for the next group commit or Raft entry), not once it is applied; so up to
 * {@code maxInFlight} entries are on their way while the leader takes the next write, and each writer is answered
 * when its entry is applied. Because the log keeps their order, what applies of a leader's entries is a prefix of
 * them as long as its numbers are right; once one is fenced or failed, the later ones in flight are fenced too, so
 * the leader takes no write until all have come back, then continues after the number the log last reported
 * applied. Group commit happens before the leader as well: each node's {@link WriteBatcher} gathers what its writers
 * appended into one {@link Write}. A fenced write is answered {@link Fenced} (its writer may send it again); a write
 * the log failed is answered {@link Failed}.
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
   * names the writer, whose writes are numbered from {@code firstWriteId}: they apply only in that order, and the
   * same write sent again, to this leader or another, is applied once.
   */
  public record Write(String writer, long firstWriteId, long id, LogEntry commands, ActorRef<WriteOutcome> replyTo,
      ActorRef<OnLeaderDisk> onLeaderDisk) implements Command {
    public Write {
      Objects.requireNonNull(writer, "writer");
      Objects.requireNonNull(commands, "commands");
      Objects.requireNonNull(replyTo, "replyTo");
    }

    /** A write whose writer needs no {@link OnLeaderDisk}. */
    public Write(String writer, long id, LogEntry commands, ActorRef<WriteOutcome> replyTo) {
      this(writer, 0, id, commands, replyTo, null);
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
   * Not applied: an earlier write of the same writer was not applied before it (fenced, or lost with a leader), and a
   * writer's writes apply only in order. Resending it after the earlier ones is safe.
   */
  public record OutOfOrder(long writeId) implements WriteOutcome {}

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
  public record EntryPersisted(long leaderSequenceNr, String writer, long firstWriteId, long writeId,
      LogEntry commands, CompletableFuture<CommandResult.LeaderEntryApplied> outcome) {
    public EntryPersisted {
      Objects.requireNonNull(commands, "commands");
      Objects.requireNonNull(outcome, "outcome");
    }
  }

  /** The leader's state: how many entries it persisted since it recovered (its sequence number is the log's). */
  public record State(long persisted) {}

  /** Entries a leader has in flight at most by default; writes beyond wait in its stash. */
  public static final int DEFAULT_MAX_IN_FLIGHT = 64;

  /**
   * @param restartBackoff least pause before a leader that was fenced or failed recovers again
   */
  public static Behavior<Command> create(Duration restartBackoff) {
    return create(restartBackoff, null);
  }

  /** @param diskAcks this node's Raft replica's, for {@link OnLeaderDisk}; null standalone */
  public static Behavior<Command> create(Duration restartBackoff, LeaderDiskAcks diskAcks) {
    return create(restartBackoff, diskAcks, DEFAULT_MAX_IN_FLIGHT);
  }

  /** @param maxInFlight entries persisted and not yet applied (or refused) at most */
  public static Behavior<Command> create(Duration restartBackoff, LeaderDiskAcks diskAcks, int maxInFlight) {
    return Behaviors.supervise(Behaviors.<Command>setup(ctx -> new Persistent(ctx, restartBackoff, diskAcks,
        maxInFlight))).onFailure(SupervisorStrategy.restartWithBackoff(restartBackoff, restartBackoff.multipliedBy(20),
        0.2));
  }

  /**
   * Told to itself when the log reported on entry {@code sequenceNr}: {@code appliedSequenceNr} is the log's last
   * applied leader entry then, or -1 when the log failed the entry (it does not know).
   */
  private record EntryDone(long generation, long sequenceNr, boolean applied, long appliedSequenceNr)
      implements Command {}

  /** Tells a restarted leader's entries from those of the instance before it, which answer to the same address. */
  private static final AtomicLong GENERATIONS = new AtomicLong();

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
    if (applied.outOfOrder()) {
      return new OutOfOrder(id);
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
    private final LeaderDiskAcks diskAcks;
    private final int maxInFlight;
    private final long generation = GENERATIONS.incrementAndGet();
    /** The leader sequence number of the next entry: the recovered one + 1, then one more per entry persisted. */
    private long next;
    /** The highest leader sequence number the log reported applied (recovered, then from each outcome). */
    private long reportedApplied;
    /** Entries persisted whose outcome has not come back. */
    private int inFlight;
    /**
     * Set when an entry was fenced or failed: its successors in flight will be fenced, so nothing more is persisted
     * until they are all back, and the numbering restarts after {@link #reportedApplied}.
     */
    private boolean draining;
    /** Set by {@link Resign}; never cleared (a node that leads again gets a new leader, with a new name). */
    private boolean resigned;

    Persistent(ActorContext<Command> ctx, Duration restartBackoff, LeaderDiskAcks diskAcks, int maxInFlight) {
      super(PersistenceId.ofUniqueId(PERSISTENCE_ID),
          SupervisorStrategy.restartWithBackoff(restartBackoff, restartBackoff.multipliedBy(20), 0.2));
      if (maxInFlight < 1) {
        throw new IllegalArgumentException("maxInFlight must be at least 1, not " + maxInFlight);
      }
      this.ctx = ctx;
      this.diskAcks = diskAcks;
      this.maxInFlight = maxInFlight;
    }

    @Override
    public State emptyState() {
      return new State(0);
    }

    @Override
    public CommandHandler<Command, EntryPersisted, State> commandHandler() {
      return newCommandHandlerBuilder().forAnyState()
          .onCommand(Write.class, this::onWrite)
          .onCommand(EntryDone.class, this::onEntryDone)
          .onCommand(Resign.class, this::onResign)
          .build();
    }

    /** Writes waiting in the stash are answered {@link NotLeading} now; entries in flight still end as they end. */
    private Effect<EntryPersisted, State> onResign(State state, Resign resign) {
      resigned = true;
      return Effect().none().thenUnstashAll();
    }

    /** The reply goes when the journal completes the outcome: after the entry was applied, or failed or fenced. */
    private Effect<EntryPersisted, State> onWrite(State state, Write write) {
      if (resigned) {
        write.replyTo().tell(new NotLeading(write.id()));
        return Effect().none();
      }
      if (draining || inFlight >= maxInFlight) {
        return Effect().stash();
      }
      long sequenceNr = next++;
      inFlight++;
      EntryPersisted event = new EntryPersisted(sequenceNr, write.writer(), write.firstWriteId(), write.id(),
          write.commands(), new CompletableFuture<>());
      if (write.onLeaderDisk() != null && diskAcks != null) {
        // Asked before the entry is appended, so the log cannot reach disk before anyone listens.
        diskAcks.await(sequenceNr).thenAccept(at ->
            write.onLeaderDisk().tell(new OnLeaderDisk(write.id(), at.logIndex(), at.firstSlot())));
      }
      ActorRef<Command> self = ctx.getSelf();
      event.outcome().whenComplete((applied, failure) -> {
        if (diskAcks != null) {
          diskAcks.forget(sequenceNr);
        }
        // The writer is answered from here, in the log's order; the leader's own bookkeeping goes by its mailbox.
        write.replyTo().tell(outcomeOf(write.id(), applied, failure));
        self.tell(failure != null ? new EntryDone(generation, sequenceNr, false, -1)
            : new EntryDone(generation, sequenceNr, !applied.fenced(), applied.appliedSequenceNr()));
      });
      return Effect().persist(event);
    }

    private Effect<EntryPersisted, State> onEntryDone(State state, EntryDone done) {
      if (done.generation() != generation) {
        return Effect().none(); // an entry of the instance before a restart, which recovered after it was decided
      }
      inFlight--;
      reportedApplied = Math.max(reportedApplied, done.appliedSequenceNr());
      if (!done.applied()) {
        draining = true;
      }
      if (draining && inFlight == 0) {
        // Everything this leader wrote has come back: continue after what the log last said it applied. After a
        // failure that is the failed entry's own number again (the log may still apply it late; then the next
        // entry is fenced and this happens once more).
        draining = false;
        next = reportedApplied + 1;
        return Effect().none().thenUnstashAll();
      }
      // A place came free: what waited for one goes now.
      return !draining && inFlight == maxInFlight - 1 ? Effect().none().thenUnstashAll() : Effect().none();
    }

    /** The journal's highest sequence number for this id is the state machine's: continue after it. */
    @Override
    public SignalHandler<State> signalHandler() {
      return newSignalHandlerBuilder().onSignal(RecoveryCompleted.instance(),
          state -> {
            reportedApplied = lastSequenceNumber(ctx);
            next = reportedApplied + 1;
            ctx.getLog().info("Write leader {} recovered: its first entry is number {}", ctx.getSelf().path().name(),
                next);
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
