package io.futureq.log.leader;

import io.futureq.log.CommandResult;
import io.futureq.log.CommandResultCodec;
import io.futureq.log.EventIds;
import io.futureq.log.EventLog.LeaderAck;
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
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.actor.typed.receptionist.Receptionist;

/**
 * Group commit in front of the write leader, one per node: every append made while this node's writes are in
 * flight goes into the next {@link LogLeader.Write} (up to {@code maxCommands} and {@code maxBytes}), so one fsync or
 * one Raft entry still covers many requests. Up to {@code writesInFlight} writes are on their way to the leader at
 * once, in append order; the leader pipelines them into the log in that order.
 *
 * <p>It finds the leader through the receptionist: of those listed, the one with the greatest name (the latest Raft
 * term, see {@link LeaderPlacement}). Writes are numbered from 0 under a name of this incarnation, and the state
 * machine applies them only in that order, each once (see {@code LeaderEntry} in log.proto): what applies of this
 * batcher is always a gap-free prefix of its writes. A write answered {@link LogLeader.Fenced},
 * {@link LogLeader.NotLeading} or {@link LogLeader.OutOfOrder} was not applied, so it goes again as it was, under
 * its id, to whichever leader is listed then (after a pause when that leader resigned, for the listing to move on),
 * up to {@code maxResends} times. Writes sent again go once nothing else is in flight, all at once, lowest id first,
 * followed at once by new writes: one leader persists what it is sent in that order, so they reach the log in id
 * order, and one commit round carries them all. Sent one at a time, a failover cost a round per write sent again
 * before the first new one.
 *
 * <p>When the listing moves to another leader (a new Raft term, a crashed or stopped leader), the writes still
 * unanswered by the old one go to the new one that way: a write the old leader did persist is answered
 * {@link LogLeader.AlreadyApplied} (its appends then fail, results unknown), and one it never got is applied now,
 * without its clients seeing the failover.
 *
 * <p>A write given up on (the log failed it, no answer in time, refused too often) fails its appends, and may
 * still apply or never: the writes after it would be refused as out of order for ever if it never does. So the
 * batcher then takes a new name and numbers on from its next id ({@code first_write_id}); a write of an earlier
 * name that is refused later fails its appends instead of going again (a copy of it may still be on its way).
 */
public final class WriteBatcher extends AbstractBehavior<WriteBatcher.Command> {
  /** How long a write the leader answered {@link LogLeader.NotLeading} waits before it goes again. */
  static final Duration RESEND_PAUSE = Duration.ofMillis(100);

  /** What the batcher accepts. Local only: appends carry the caller's future. */
  public sealed interface Command {}

  /**
   * One command to append; {@code result} completes with what applying it did, and {@code onLeaderDisk} (when set)
   * with where it is once the Raft leader's log has it on disk (see {@link LogLeader.OnLeaderDisk}).
   */
  public record Append(LogCommand command, CompletableFuture<CommandResult> result, int bytes,
      CompletableFuture<LeaderAck> onLeaderDisk) implements Command {
    public Append {
      Objects.requireNonNull(command, "command");
      Objects.requireNonNull(result, "result");
    }

    public Append(LogCommand command, CompletableFuture<CommandResult> result, int bytes) {
      this(command, result, bytes, null);
    }

    /** Its producer was answered at the leader's disk: the write must not go again, as another entry. */
    boolean answeredOnLeaderDisk() {
      return onLeaderDisk != null && onLeaderDisk.isDone();
    }
  }

  private record LeadersListed(Receptionist.Listing listing) implements Command {}

  private record Answered(LogLeader.WriteOutcome outcome) implements Command {}

  private record OnDisk(LogLeader.OnLeaderDisk onDisk) implements Command {}

  private record Unanswered(long writeId) implements Command {}

  private record Resume() implements Command {}

  private record LeaderStopped(ActorRef<LogLeader.Command> leader) implements Command {}

  /** A name this batcher writes under, and the id of its first write under it. */
  private record Writer(String name, long firstWriteId) {}

  /**
   * A write sent and not answered yet: its name, appends, the leader it went to, how often it was refused before, and
   * whether it is a write sent again (those do not count against {@code writesInFlight}).
   */
  private record InFlight(Writer writer, List<Append> appends, ActorRef<LogLeader.Command> leader, int resends,
      boolean again) {}

  /** A write of the current name to send again as it was (what of it is still to send), and how often it went. */
  private record Resend(List<Append> appends, int resends) {}

  /**
   * @param writesInFlight writes sent to the leader and not yet answered, at most
   * @param timeout how long a write may take before its appends fail (unknown outcome)
   * @param maxResends how often a fenced write is sent again before its appends fail
   */
  public static Behavior<Command> create(int maxCommands, long maxBytes, int writesInFlight, Duration timeout,
      int maxResends) {
    if (writesInFlight < 1) {
      throw new IllegalArgumentException("writesInFlight must be at least 1, not " + writesInFlight);
    }
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers ->
        new WriteBatcher(ctx, timers, maxCommands, maxBytes, writesInFlight, timeout, maxResends)));
  }

  private final TimerScheduler<Command> timers;
  private final int maxCommands;
  private final long maxBytes;
  private final int writesInFlight;
  private final Duration timeout;
  private final int maxResends;
  private final ActorRef<LogLeader.WriteOutcome> answers;
  private final ActorRef<LogLeader.OnLeaderDisk> diskAnswers;
  private final Deque<Append> waiting = new ArrayDeque<>();
  /** This batcher's name in the log's ordering of writes: a new one after a write it gave up on. */
  private Writer writer = new Writer(UUID.randomUUID().toString(), 0);
  private final Map<Long, InFlight> inFlight = new HashMap<>();
  /** Writes to send again, by id: the lowest goes first. */
  private final TreeMap<Long, Resend> resend = new TreeMap<>();
  private final Set<ActorRef<LogLeader.Command>> watched = new HashSet<>();
  private ActorRef<LogLeader.Command> leader;
  private long nextWriteId;
  private boolean paused;

  private WriteBatcher(ActorContext<Command> ctx, TimerScheduler<Command> timers, int maxCommands, long maxBytes,
      int writesInFlight, Duration timeout, int maxResends) {
    super(ctx);
    this.timers = timers;
    this.maxCommands = maxCommands;
    this.maxBytes = maxBytes;
    this.writesInFlight = writesInFlight;
    this.timeout = timeout;
    this.maxResends = maxResends;
    this.answers = ctx.messageAdapter(LogLeader.WriteOutcome.class, Answered::new);
    this.diskAnswers = ctx.messageAdapter(LogLeader.OnLeaderDisk.class, OnDisk::new);
    ActorRef<Receptionist.Listing> listings = ctx.messageAdapter(Receptionist.Listing.class, LeadersListed::new);
    ctx.getSystem().receptionist().tell(Receptionist.subscribe(LogLeader.SERVICE_KEY, listings));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Append.class, this::onAppend)
        .onMessage(LeadersListed.class, this::onLeadersListed)
        .onMessage(Answered.class, this::onAnswered)
        .onMessage(OnDisk.class, this::onDisk)
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
      getContext().getLog().debug("Writes go to the write leader {} now", listedLeader);
      paused = false; // a new leader need not wait out a pause meant for the old one
      if (listedLeader != null && watched.add(listedLeader)) {
        getContext().watchWith(listedLeader, new LeaderStopped(listedLeader));
      }
      if (listedLeader != null) {
        sendAgainWhatIsNotAnsweredBy(l -> !l.equals(listedLeader));
      }
    }
    leader = listedLeader;
    sendIfIdle();
    return this;
  }

  private Behavior<Command> onAnswered(Answered answered) {
    LogLeader.WriteOutcome outcome = answered.outcome();
    long id = outcome.writeId();
    InFlight write = inFlight.remove(id);
    if (write == null) {
      return this; // answered after its appends failed for want of an answer
    }
    timers.cancel(id);
    List<Append> written = write.appends();
    if (outcome instanceof LogLeader.Written w) {
      List<CommandResult> results = CommandResultCodec.decode(w.results());
      for (int i = 0; i < written.size(); i++) {
        written.get(i).result().complete(results.get(i));
      }
    } else if (outcome instanceof LogLeader.Fenced || outcome instanceof LogLeader.NotLeading
        || outcome instanceof LogLeader.OutOfOrder) {
      // Not applied: under its own id again, since it may be a write sent again whose first leader did persist it.
      int resends = write.resends() + 1;
      if (!write.writer().equals(writer)) {
        failAll(written, notSentAgain());
      } else if (resends > maxResends) {
        failAll(written, new LogUnavailableException("the write leader's " + describe(outcome), null));
        giveUp();
      } else {
        resend.put(id, new Resend(written, resends));
        if (outcome instanceof LogLeader.NotLeading && write.leader().equals(leader) && !paused) {
          pause(resends);
        }
      }
    } else if (outcome instanceof LogLeader.Failed f) {
      failAll(written, f.toException());
      giveUp(); // the log may still apply it, or never
    } else if (outcome instanceof LogLeader.AlreadyApplied) {
      failAll(written, new LogUnavailableException("the write was applied by an earlier write leader, which did not "
          + "answer before the leadership moved; its results are not known", null));
    } else {
      failAll(written, new LogUnavailableException("the write leader's answer " + outcome + " is not understood",
          null));
      giveUp();
    }
    sendIfIdle();
    return this;
  }

  /**
   * A write of the current name was given up on: later writes go under a new name, numbered on, so that they do not
   * wait for ever behind it; what waits to go again under the old name fails (a copy may still be on its way).
   */
  private void giveUp() {
    writer = new Writer(UUID.randomUUID().toString(), nextWriteId);
    resend.values().forEach(r -> failAll(r.appends(), notSentAgain()));
    resend.clear();
  }

  /** Why a write of a name given up on fails instead of going again: a copy of it may still be on its way. */
  private static LogUnavailableException notSentAgain() {
    return new LogUnavailableException("the write was not applied and cannot go again: an earlier write of this node "
        + "failed", null);
  }

  /** Sends nothing for a while: the leader resigned. */
  private void pause(int resends) {
    paused = true;
    timers.startSingleTimer(new Resume(), RESEND_PAUSE.multipliedBy(Math.min(resends, 20)));
  }

  /**
   * The write's entry is on the leader's disk: each append that asked learns its slots, in the write's order. Not
   * for a write sent again: the answer may come late from the leader it first went to (under the same id), and
   * either copy may be the one that applies, or neither (see {@link #wantsDiskAnswers}).
   */
  private Behavior<Command> onDisk(OnDisk onDisk) {
    InFlight write = inFlight.get(onDisk.onDisk().writeId());
    if (write == null || write.again()) {
      return this;
    }
    int slot = onDisk.onDisk().firstSlot();
    for (Append append : write.appends()) {
      if (append.onLeaderDisk() != null) {
        append.onLeaderDisk().complete(new LeaderAck(onDisk.onDisk().logIndex(), slot));
      }
      slot += EventIds.slotsOf(append.command());
    }
    return this;
  }

  /**
   * A leader that stopped (its node shut down, or it resigned and its grace ended) will answer nothing more: its
   * writes go to the next leader as they were, rather than failing at the timeout.
   */
  private Behavior<Command> onLeaderStopped(LeaderStopped stopped) {
    watched.remove(stopped.leader());
    if (stopped.leader().equals(leader)) {
      leader = null; // until the listing names the next one
    }
    sendAgainWhatIsNotAnsweredBy(stopped.leader()::equals);
    sendIfIdle();
    return this;
  }

  /** Moves the writes in flight to the leaders {@code gone} selects to those sent again, as they were. */
  private void sendAgainWhatIsNotAnsweredBy(Predicate<ActorRef<LogLeader.Command>> gone) {
    List<Long> ids = inFlight.entrySet().stream().filter(e -> gone.test(e.getValue().leader()))
        .map(Map.Entry::getKey).toList();
    for (long id : ids) {
      timers.cancel(id);
      InFlight write = inFlight.remove(id);
      if (write.writer().equals(writer)) {
        resend.put(id, new Resend(write.appends(), write.resends()));
      } else {
        failAll(write.appends(), new LogUnavailableException("the write leader changed before it answered; the "
            + "write may still be applied", null));
      }
    }
  }

  /** No answer in time: its appends fail (outcome unknown), and the write is given up on. */
  private Behavior<Command> onUnanswered(Unanswered unanswered) {
    InFlight write = inFlight.remove(unanswered.writeId());
    if (write != null) {
      failAll(write.appends(), new LogUnavailableException("the write leader did not answer within " + timeout
          + "; the entry may still be applied", null));
      if (write.writer().equals(writer)) {
        giveUp();
      }
    }
    sendIfIdle();
    return this;
  }

  /**
   * Writes sent again go first, all of them once nothing else is in flight, lowest id first (see the class comment);
   * then new writes, while fewer than {@code writesInFlight} new ones are in flight.
   */
  private void sendIfIdle() {
    if (leader == null || paused) {
      return;
    }
    if (!resend.isEmpty()) {
      if (!inFlight.isEmpty()) {
        return; // those will be refused too if one before them was: all go again together, in order
      }
      while (!resend.isEmpty()) {
        Map.Entry<Long, Resend> again = resend.pollFirstEntry();
        // Callers already answered (timed out) are left out: applied at most once either way, under the write's id;
        // if none is left, the id still goes (empty), so that the writes after it are not out of order.
        send(again.getKey(), stillToSend(again.getValue().appends()), again.getValue().resends(), true);
      }
    }
    while (newWritesInFlight() < writesInFlight) {
      List<Append> batch = nextBatch();
      if (batch.isEmpty()) {
        return;
      }
      send(nextWriteId++, batch, 0, false);
    }
  }

  /**
   * Whether a write asks the leader for {@link LogLeader.OnLeaderDisk}: not when it is sent again, nor while writes
   * sent again are in flight. A disk answer says where the entry will apply, and those may apply elsewhere or not at
   * all: a write sent again whose first copy did apply is answered {@link LogLeader.AlreadyApplied}, and a new one
   * behind a refused one is refused too. Their appends are answered when applied instead, as at QUORUM.
   */
  private boolean wantsDiskAnswers(boolean again) {
    return !again && inFlight.values().stream().noneMatch(InFlight::again);
  }

  private long newWritesInFlight() {
    return inFlight.values().stream().filter(write -> !write.again()).count();
  }

  private void send(long id, List<Append> batch, int resends, boolean again) {
    boolean onDisk = wantsDiskAnswers(again) && batch.stream().anyMatch(a -> a.onLeaderDisk() != null);
    inFlight.put(id, new InFlight(writer, batch, leader, resends, again));
    LogEntry.Builder entry = LogEntry.newBuilder();
    batch.forEach(a -> entry.addCommands(a.command()));
    leader.tell(new LogLeader.Write(writer.name(), writer.firstWriteId(), id, entry.build(), answers,
        onDisk ? diskAnswers : null));
    timers.startSingleTimer(id, new Unanswered(id), timeout);
  }

  /**
   * What of a write goes again: not the appends whose callers gave up; nor those answered at the leader's disk,
   * whose ids came from the first entry (sent again, they would be stored under others), which fail instead, their
   * outcome unknown: {@code ACK_LEVEL_LEADER} loses them if that entry does not commit.
   */
  private static List<Append> stillToSend(List<Append> appends) {
    List<Append> send = new ArrayList<>(appends.size());
    for (Append append : appends) {
      if (append.answeredOnLeaderDisk()) {
        append.result().completeExceptionally(new LogUnavailableException("the write leader changed after this write "
            + "was on its disk and before it was applied; it is lost unless a majority had it", null));
      } else if (!append.result().isDone()) {
        send.add(append);
      }
    }
    return send;
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
    if (outcome instanceof LogLeader.OutOfOrder) {
      return "write came before an earlier one of this node too often";
    }
    return String.valueOf(outcome);
  }
}
