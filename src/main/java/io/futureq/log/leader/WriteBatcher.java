package io.futureq.log.leader;

import io.futureq.log.CommandResult;
import io.futureq.log.CommandResultCodec;
import io.futureq.log.LogUnavailableException;
import io.futureq.log.proto.LogCommand;
import io.futureq.log.proto.LogEntry;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.actor.typed.receptionist.Receptionist;

/**
 * Group commit in front of the write leader, one per node: every append made while this node's last
 * {@link LogLeader.Write} was in flight goes into the next one (up to {@code maxCommands} and {@code maxBytes}),
 * so one fsync or one Raft entry still covers many requests, and one write per node is in flight to the leader, in
 * append order.
 *
 * <p>It finds the leader through the receptionist: of those listed, the one with the greatest name (the latest Raft
 * term, see {@link LeaderPlacement}). A write the leader reports {@link LogLeader.Fenced} or
 * {@link LogLeader.NotLeading} was applied nowhere, so it goes again, first in line, to whichever leader is listed
 * then (after a pause when that leader resigned, for the listing to move on), up to {@code maxResends} times; a
 * failed or unanswered write fails its appends, whose outcome is then unknown. A write still unanswered by a
 * leader that is no longer listed does not hold back the next one to the new leader: Raft applies an old leader's
 * entry before anything of a later term, or never.
 */
public final class WriteBatcher extends AbstractBehavior<WriteBatcher.Command> {
  /** How long a write the leader answered {@link LogLeader.NotLeading} waits before it goes again. */
  static final Duration RESEND_PAUSE = Duration.ofMillis(100);

  /** What the batcher accepts. Local only: appends carry the caller's future. */
  public sealed interface Command {}

  /** One command to append; {@code result} completes with what applying it did. */
  public record Append(LogCommand command, CompletableFuture<CommandResult> result, int bytes) implements Command {
    public Append {
      Objects.requireNonNull(command, "command");
      Objects.requireNonNull(result, "result");
    }
  }

  private record LeadersListed(Receptionist.Listing listing) implements Command {}

  private record Answered(LogLeader.WriteOutcome outcome) implements Command {}

  private record Unanswered(long writeId) implements Command {}

  private record Resume() implements Command {}

  private record LeaderStopped(ActorRef<LogLeader.Command> leader) implements Command {}

  /** A write sent and not answered yet: its appends, and the leader it went to. */
  private record InFlight(List<Append> appends, ActorRef<LogLeader.Command> leader) {}

  /**
   * @param timeout how long a write may take before its appends fail (unknown outcome)
   * @param maxResends how often a fenced write is sent again before its appends fail
   */
  public static Behavior<Command> create(int maxCommands, long maxBytes, Duration timeout, int maxResends) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers ->
        new WriteBatcher(ctx, timers, maxCommands, maxBytes, timeout, maxResends)));
  }

  private final TimerScheduler<Command> timers;
  private final int maxCommands;
  private final long maxBytes;
  private final Duration timeout;
  private final int maxResends;
  private final ActorRef<LogLeader.WriteOutcome> answers;
  private final Deque<Append> waiting = new ArrayDeque<>();
  private final Map<Long, InFlight> inFlight = new HashMap<>();
  private final Set<ActorRef<LogLeader.Command>> watched = new HashSet<>();
  private ActorRef<LogLeader.Command> leader;
  private long nextWriteId;
  private int resends;
  private boolean paused;

  private WriteBatcher(ActorContext<Command> ctx, TimerScheduler<Command> timers, int maxCommands, long maxBytes,
      Duration timeout, int maxResends) {
    super(ctx);
    this.timers = timers;
    this.maxCommands = maxCommands;
    this.maxBytes = maxBytes;
    this.timeout = timeout;
    this.maxResends = maxResends;
    this.answers = ctx.messageAdapter(LogLeader.WriteOutcome.class, Answered::new);
    ActorRef<Receptionist.Listing> listings = ctx.messageAdapter(Receptionist.Listing.class, LeadersListed::new);
    ctx.getSystem().receptionist().tell(Receptionist.subscribe(LogLeader.SERVICE_KEY, listings));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Append.class, this::onAppend)
        .onMessage(LeadersListed.class, this::onLeadersListed)
        .onMessage(Answered.class, this::onAnswered)
        .onMessage(Unanswered.class, this::onUnanswered)
        .onMessage(LeaderStopped.class, this::onLeaderStopped)
        .onMessage(Resume.class, r -> {
          paused = false;
          sendIfIdle();
          return this;
        })
        .build();
  }

  private Behavior<Command> onAppend(Append append) {
    waiting.add(append);
    sendIfIdle();
    return this;
  }

  /** During a handover two leaders may be listed for a moment; the one of the latest term is the one to write to. */
  private Behavior<Command> onLeadersListed(LeadersListed listed) {
    ActorRef<LogLeader.Command> listedLeader = listed.listing().getServiceInstances(LogLeader.SERVICE_KEY).stream()
        .max(Comparator.comparing(ref -> ref.path().name())).orElse(null);
    if (!Objects.equals(listedLeader, leader)) {
      paused = false; // a new leader need not wait out a pause meant for the old one
      if (listedLeader != null && watched.add(listedLeader)) {
        getContext().watchWith(listedLeader, new LeaderStopped(listedLeader));
      }
    }
    leader = listedLeader;
    sendIfIdle();
    return this;
  }

  private Behavior<Command> onAnswered(Answered answered) {
    LogLeader.WriteOutcome outcome = answered.outcome();
    InFlight write = inFlight.remove(outcome.writeId());
    if (write == null) {
      return this; // answered after its appends failed for want of an answer
    }
    timers.cancel(outcome.writeId());
    List<Append> written = write.appends();
    if (outcome instanceof LogLeader.Written w) {
      resends = 0;
      List<CommandResult> results = CommandResultCodec.decode(w.results());
      for (int i = 0; i < written.size(); i++) {
        written.get(i).result().complete(results.get(i));
      }
    } else if ((outcome instanceof LogLeader.Fenced || outcome instanceof LogLeader.NotLeading)
        && resends < maxResends) {
      resends++;
      for (int i = written.size() - 1; i >= 0; i--) {
        waiting.addFirst(written.get(i));
      }
      if (outcome instanceof LogLeader.NotLeading && write.leader().equals(leader) && !paused) {
        paused = true;
        timers.startSingleTimer(new Resume(), RESEND_PAUSE.multipliedBy(resends));
      }
    } else if (outcome instanceof LogLeader.Failed f) {
      resends = 0;
      failAll(written, f.toException());
    } else {
      resends = 0;
      failAll(written, new LogUnavailableException("the write leader's " + describe(outcome), null));
    }
    sendIfIdle();
    return this;
  }

  /**
   * A leader that stopped (its node shut down, or it resigned and its grace ended) will answer nothing more: its
   * writes fail now rather than at the timeout. What it had persisted may still be applied, so they are not resent.
   */
  private Behavior<Command> onLeaderStopped(LeaderStopped stopped) {
    watched.remove(stopped.leader());
    inFlight.entrySet().removeIf(entry -> {
      if (!entry.getValue().leader().equals(stopped.leader())) {
        return false;
      }
      timers.cancel(entry.getKey());
      failAll(entry.getValue().appends(), new LogUnavailableException("the write leader stopped before it answered;"
          + " the entry may still be applied", null));
      return true;
    });
    sendIfIdle();
    return this;
  }

  private Behavior<Command> onUnanswered(Unanswered unanswered) {
    InFlight write = inFlight.remove(unanswered.writeId());
    if (write != null) {
      failAll(write.appends(), new LogUnavailableException("the write leader did not answer within " + timeout
          + "; the entry may still be applied", null));
    }
    sendIfIdle();
    return this;
  }

  private void sendIfIdle() {
    if (leader == null || paused || inFlight.values().stream().anyMatch(w -> w.leader().equals(leader))) {
      return;
    }
    List<Append> batch = nextBatch();
    if (batch.isEmpty()) {
      return;
    }
    long id = nextWriteId++;
    inFlight.put(id, new InFlight(batch, leader));
    LogEntry.Builder entry = LogEntry.newBuilder();
    batch.forEach(a -> entry.addCommands(a.command()));
    leader.tell(new LogLeader.Write(id, entry.build(), answers));
    timers.startSingleTimer(id, new Unanswered(id), timeout);
  }

  /** The next appends that fit one entry, in order; appends whose callers were answered already are dropped. */
  private List<Append> nextBatch() {
    List<Append> batch = new ArrayList<>();
    long bytes = 0;
    while (!waiting.isEmpty() && batch.size() < maxCommands) {
      Append next = waiting.peekFirst();
      if (next.result().isDone()) {
        waiting.pollFirst();
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

  private static void failAll(List<Append> appends, Throwable failure) {
    appends.forEach(a -> a.result().completeExceptionally(failure));
  }

  private static String describe(LogLeader.WriteOutcome outcome) {
    if (outcome instanceof LogLeader.Fenced fenced) {
      return "entry " + fenced.sequenceNr() + " was fenced (a newer leader applied " + fenced.appliedSequenceNr()
          + ") too often";
    }
    if (outcome instanceof LogLeader.NotLeading) {
      return "writes went to leaders that had resigned too often";
    }
    return String.valueOf(outcome);
  }
}
