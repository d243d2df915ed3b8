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
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.receptionist.Receptionist;

/**
 * Group commit in front of the write leader, one per node: every append made while this node's last
 * {@link LogLeader.Write} was in flight goes into the next one (up to {@code maxCommands} and {@code maxBytes}),
 * so one fsync or one Raft entry still covers many requests, and one write per node is in flight, in append order.
 *
 * <p>It finds the leader through the receptionist. A write the leader reports {@link LogLeader.Fenced} was applied
 * nowhere, so it goes again, first in line, to whichever leader the receptionist lists then (a handover), up to
 * {@code maxResends} times; a failed or unanswered write fails its appends, whose outcome is then unknown.
 */
public final class WriteBatcher extends AbstractBehavior<WriteBatcher.Command> {

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

  private record WriteEnded(LogLeader.WriteOutcome outcome, Throwable failure) implements Command {}

  /**
   * @param timeout how long a write may take before its appends fail (unknown outcome)
   * @param maxResends how often a fenced write is sent again before its appends fail
   */
  public static Behavior<Command> create(int maxCommands, long maxBytes, Duration timeout, int maxResends) {
    return Behaviors.setup(ctx -> new WriteBatcher(ctx, maxCommands, maxBytes, timeout, maxResends));
  }

  private final int maxCommands;
  private final long maxBytes;
  private final Duration timeout;
  private final int maxResends;
  private final Deque<Append> waiting = new ArrayDeque<>();
  private List<Append> inFlight = List.of();
  private ActorRef<LogLeader.Command> leader;
  private int resends;

  private WriteBatcher(ActorContext<Command> ctx, int maxCommands, long maxBytes, Duration timeout,
      int maxResends) {
    super(ctx);
    this.maxCommands = maxCommands;
    this.maxBytes = maxBytes;
    this.timeout = timeout;
    this.maxResends = maxResends;
    ActorRef<Receptionist.Listing> listings = ctx.messageAdapter(Receptionist.Listing.class, LeadersListed::new);
    ctx.getSystem().receptionist().tell(Receptionist.subscribe(LogLeader.SERVICE_KEY, listings));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Append.class, this::onAppend)
        .onMessage(LeadersListed.class, this::onLeadersListed)
        .onMessage(WriteEnded.class, this::onWriteEnded)
        .build();
  }

  private Behavior<Command> onAppend(Append append) {
    waiting.add(append);
    sendIfIdle();
    return this;
  }

  /**
   * During a handover two leaders may be listed for a moment; either is safe to write to (the state machine fences
   * the stale one), so the choice only has to be stable: the one with the greatest path, a new incarnation.
   */
  private Behavior<Command> onLeadersListed(LeadersListed listed) {
    leader = listed.listing().getServiceInstances(LogLeader.SERVICE_KEY).stream()
        .max(Comparator.comparing(ref -> ref.path().toString())).orElse(null);
    sendIfIdle();
    return this;
  }

  private Behavior<Command> onWriteEnded(WriteEnded ended) {
    List<Append> written = inFlight;
    inFlight = List.of();
    if (ended.failure() != null) {
      failAll(written, new LogUnavailableException("the write leader did not answer within " + timeout
          + "; the entry may still be applied", ended.failure()));
    } else if (ended.outcome() instanceof LogLeader.Written w) {
      resends = 0;
      List<CommandResult> results = CommandResultCodec.decode(w.results());
      for (int i = 0; i < written.size(); i++) {
        written.get(i).result().complete(results.get(i));
      }
    } else if (ended.outcome() instanceof LogLeader.Fenced f && resends < maxResends) {
      resends++;
      for (int i = written.size() - 1; i >= 0; i--) {
        waiting.addFirst(written.get(i));
      }
    } else if (ended.outcome() instanceof LogLeader.Failed f) {
      resends = 0;
      failAll(written, f.toException());
    } else {
      resends = 0;
      failAll(written, new LogUnavailableException("the write leader's " + describe(ended.outcome()), null));
    }
    sendIfIdle();
    return this;
  }

  private void sendIfIdle() {
    if (!inFlight.isEmpty() || leader == null) {
      return;
    }
    List<Append> batch = nextBatch();
    if (batch.isEmpty()) {
      return;
    }
    inFlight = batch;
    LogEntry.Builder entry = LogEntry.newBuilder();
    batch.forEach(a -> entry.addCommands(a.command()));
    LogEntry commands = entry.build();
    getContext().ask(LogLeader.WriteOutcome.class, leader, timeout,
        replyTo -> new LogLeader.Write(commands, replyTo), WriteEnded::new);
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
    return String.valueOf(outcome);
  }
}
