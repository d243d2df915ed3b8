package io.futureq.group;

import io.futureq.config.TopicSettings;
import io.futureq.storage.OrderedStore;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.pattern.StatusReply;

/**
 * A topic's due feed, spawned and owned by its topic entity: it reads each due chunk of the topic once,
 * shortly before it is due, and hands every group that asked for more its share (what it has not acked;
 * what it nacked with a delay comes apart). Groups hold what is not due yet and deliver it at its due time.
 *
 * <p>A group that asks for nothing while the others read on (its consumers are slow, or it has none)
 * keeps only its position here: the feed does not buffer for it. When it asks again it is served by reads
 * of its own, from its position up to the head's, until it is back at the head and shares its reads
 * again. So a lagging group neither holds the others back nor makes the topic buffer without bound.
 *
 * <p>Everything the topic tells its groups about messages passes here, in order: announcements of stored
 * messages (handed over at once to each group whose position is past them, see {@link DueCursor}),
 * removals (also dropped from reads that were running when they came), and the questions that must be
 * answered behind them ({@link Settle}, {@link CatchUp}).
 */
public final class DueFeed extends AbstractBehavior<DueFeed.Command> {
  /**
   * Reads start this long before the next due time, so that a read's latency (a hop to the storage
   * executor and a RocksDB range scan, ~0.5 ms) is not added to the delivery's; groups hold messages
   * read early and hand them out at their due time.
   */
  static final long READ_AHEAD_MS = 3;
  static final long MAX_TIMER_MS = Duration.ofHours(1).toMillis();

  public sealed interface Command {}

  /** A group starts: it reads from after {@code startAfter} (null: the topic's start). Its first message. */
  public record Join(String group, ActorRef<ConsumerGroup.Command> ref, byte[] startAfter) implements Command {}

  /** The group's buffer runs low: hand it the next due messages when there are some. */
  public record Demand(ActorRef<ConsumerGroup.Command> group) implements Command {}

  /**
   * Asked by a group whose replica lost touch with the Raft group and caught up ({@code recoveries} times
   * so far): answered {@link ConsumerGroup.CaughtUp} behind every removal announced before (see
   * {@link ReplicaCatchUp}).
   */
  public record CatchUp(long recoveries, ActorRef<ConsumerGroup.Command> group) implements Command {}

  /** Messages of this topic committed at log {@code index}. */
  public record Stored(long index, List<DueMessage> messages) implements Command {
    public Stored {
      messages = List.copyOf(messages);
    }
  }

  /** Messages cancelled, expired or moved away: no group delivers them again. */
  public record Removed(List<byte[]> storageKeys) implements Command {
    public Removed {
      storageKeys = List.copyOf(storageKeys);
    }
  }

  /** A message rescheduled at log {@code index}: it left key {@code from}; {@code ackedBy} had acked it. */
  public record Moved(long index, byte[] from, DueMessage to, List<String> ackedBy) implements Command {
    public Moved {
      ackedBy = List.copyOf(ackedBy);
    }
  }

  /** Answered once every group has taken in everything sent to it before (see {@code TopicEntity.Settle}). */
  public record Settle(ActorRef<StatusReply<Done>> replyTo) implements Command {}

  private record HeadRead(DueReader.Chunk chunk, Throwable failure, List<FeedMember> participants) implements Command {}

  private record LagRead(FeedMember member, byte[] bound, DueReader.Chunk chunk, Throwable failure)
      implements Command {}

  private record Wake() implements Command {}

  private record GroupStopped(ActorRef<ConsumerGroup.Command> group) implements Command {}

  private record GroupSettled(long settle, Throwable failure) implements Command {}

  private record PendingSettle(ActorRef<StatusReply<Done>> replyTo, int answersDue) {}

  public static Behavior<Command> create(String topic, TopicSettings settings, OrderedStore store, long bucketMs,
      Executor storageExecutor, WakeTimer wakeTimer, Duration askTimeout) {
    return Behaviors.setup(ctx -> new DueFeed(ctx, topic, settings, new DueReader(store, bucketMs), storageExecutor,
        wakeTimer, askTimeout));
  }

  private final String topic;
  private final TopicSettings settings;
  private final DueReader reader;
  private final DueReads reads;
  private final EarliestWake wake;
  private final Duration askTimeout;
  private final InstantSource clock;
  /** The topic's read position: what the groups at the head have been handed. */
  private final DueCursor head;
  private final Map<ActorRef<ConsumerGroup.Command>, FeedMember> members = new LinkedHashMap<>();
  private final Map<Long, PendingSettle> settles = new HashMap<>();
  private long settlesStarted;

  private DueFeed(ActorContext<Command> ctx, String topic, TopicSettings settings, DueReader reader,
      Executor storageExecutor, WakeTimer wakeTimer, Duration askTimeout) {
    super(ctx);
    this.topic = topic;
    this.settings = settings;
    this.reader = reader;
    this.reads = new DueReads(topic, settings, reader, storageExecutor);
    ActorRef<Command> self = ctx.getSelf();
    this.wake = new EarliestWake(wakeTimer, () -> self.tell(new Wake()));
    this.clock = wakeTimer.clock();
    this.askTimeout = askTimeout;
    this.head = new DueCursor(reader, null);
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Join.class, this::onJoin)
        .onMessage(Demand.class, this::onDemand)
        .onMessage(CatchUp.class, this::onCatchUp)
        .onMessage(Stored.class, this::onStored)
        .onMessage(Removed.class, this::onRemoved)
        .onMessage(Moved.class, this::onMoved)
        .onMessage(Settle.class, this::onSettle)
        .onMessage(HeadRead.class, this::onHeadRead)
        .onMessage(LagRead.class, this::onLagRead)
        .onMessage(Wake.class, this::onWake)
        .onMessage(GroupStopped.class, this::onGroupStopped)
        .onMessage(GroupSettled.class, this::onGroupSettled)
        .onSignal(PostStop.class, s -> {
          wake.cancel();
          return this;
        })
        .build();
  }

  private Behavior<Command> onJoin(Join join) {
    members.put(join.ref(), new FeedMember(join.group(), join.ref(), new DueCursor(reader, join.startAfter())));
    getContext().watchWith(join.ref(), new GroupStopped(join.ref()));
    return this;
  }

  private Behavior<Command> onDemand(Demand demand) {
    FeedMember member = members.get(demand.group());
    if (member != null) {
      member.wants = true;
      readIfWanted();
    }
    return this;
  }

  private Behavior<Command> onGroupStopped(GroupStopped stopped) {
    members.remove(stopped.group());
    return this;
  }

  private Behavior<Command> onCatchUp(CatchUp ask) {
    ask.group().tell(new ConsumerGroup.CaughtUp(ask.recoveries()));
    return this;
  }

  private Behavior<Command> onStored(Stored stored) {
    long now = clock.millis();
    wake.schedule(head.stored(stored, now, m -> {}), now);
    for (FeedMember m : members.values()) {
      m.stored(stored, now);
    }
    readIfWanted();
    return this;
  }

  private Behavior<Command> onRemoved(Removed removed) {
    ConsumerGroup.MessagesRemoved forGroups = new ConsumerGroup.MessagesRemoved(removed.storageKeys());
    members.keySet().forEach(g -> g.tell(forGroups));
    removed.storageKeys().forEach(reads::removed);
    return this;
  }

  /** Groups drop the old key; those that had not acked the message get the new one as if just stored. */
  private Behavior<Command> onMoved(Moved moved) {
    ConsumerGroup.MessagesRemoved gone = new ConsumerGroup.MessagesRemoved(List.of(moved.from()));
    members.keySet().forEach(g -> g.tell(gone));
    if (!moved.to().sameKey(moved.from())) {
      reads.removed(moved.from());
    }
    Stored stored = new Stored(moved.index(), List.of(moved.to()));
    long now = clock.millis();
    wake.schedule(head.stored(stored, now, m -> {}), now);
    for (FeedMember m : members.values()) {
      if (!moved.ackedBy().contains(m.name)) {
        m.stored(stored, now);
      }
    }
    readIfWanted();
    return this;
  }

  /**
   * Every removal came before this and was forwarded to the groups at once, so each group's answer comes
   * after it has dropped them. A group that stopped delivers nothing more, so its failed ask counts as an
   * answer; so does one that did not answer within the ask timeout, by which time the caller has stopped
   * waiting anyway.
   */
  private Behavior<Command> onSettle(Settle settle) {
    if (members.isEmpty()) {
      settle.replyTo().tell(StatusReply.ack());
      return this;
    }
    long id = ++settlesStarted;
    settles.put(id, new PendingSettle(settle.replyTo(), members.size()));
    for (ActorRef<ConsumerGroup.Command> group : members.keySet()) {
      getContext().ask(Done.class, group, askTimeout, ConsumerGroup.Settle::new,
          (done, failure) -> new GroupSettled(id, failure));
    }
    return this;
  }

  private Behavior<Command> onGroupSettled(GroupSettled settled) {
    PendingSettle pending = settles.remove(settled.settle());
    if (pending != null && pending.answersDue() == 1) {
      pending.replyTo().tell(StatusReply.ack());
    } else if (pending != null) {
      settles.put(settled.settle(), new PendingSettle(pending.replyTo(), pending.answersDue() - 1));
    }
    return this;
  }

  private Behavior<Command> onWake(Wake w) {
    wake.fired();
    head.woke();
    readIfWanted();
    return this;
  }

  /**
   * Starts the reads someone waits for: one of its own for each lagging group that asked for more, and
   * one shared by the groups at (or ahead of) the head if any of them asked and something may be due.
   */
  private void readIfWanted() {
    long now = clock.millis();
    for (FeedMember m : members.values()) {
      if (m.wants && !m.cursor.reading() && m.behind(head)) {
        if (now >= m.noReadBeforeMs) {
          readForLaggard(m, now);
        } else {
          wake.schedule(m.noReadBeforeMs + READ_AHEAD_MS, now);
        }
      }
    }
    if (head.reading() || !head.wantsRead(now, READ_AHEAD_MS)) {
      return;
    }
    List<FeedMember> participants = new ArrayList<>();
    boolean wanted = false;
    for (FeedMember m : members.values()) {
      if (!m.cursor.reading() && !m.behind(head)) {
        participants.add(m);
        wanted |= m.wants;
      }
    }
    if (!wanted) {
      return;
    }
    head.readStarted();
    participants.forEach(m -> m.cursor.readStarted());
    CompletableFuture<DueReader.Chunk> read = reads.start(head.position(), null, now);
    getContext().pipeToSelf(read, (chunk, failure) -> new HeadRead(chunk, failure, participants));
  }

  private void readForLaggard(FeedMember m, long now) {
    m.cursor.readStarted();
    byte[] from = m.cursor.position();
    byte[] bound = head.position();
    CompletableFuture<DueReader.Chunk> read = reads.start(from, bound, now);
    getContext().pipeToSelf(read, (chunk, failure) -> new LagRead(m, bound, chunk, failure));
  }

  /** The shared read finished: each participant still a member takes its share (see {@link FeedMember}). */
  private Behavior<Command> onHeadRead(HeadRead done) {
    long now = clock.millis();
    reads.finished();
    if (done.failure() != null) {
      getContext().getLog().warn("reading due messages of topic {} failed; retrying", topic, done.failure());
      wake.schedule(head.readFailed(now + settings.retryBackoff().toMillis(), now, m -> {}), now);
      for (FeedMember m : done.participants()) {
        m.readFailed(now);
      }
      reads.forgetRemovedIfIdle();
      return this;
    }
    DueReader.Chunk chunk = done.chunk();
    wake.schedule(head.readDone(chunk, now, m -> {}), now);
    for (FeedMember m : done.participants()) {
      if (members.get(m.ref) == m) {
        m.takeHeadRead(chunk, now, reads::removedDuringRead);
      }
    }
    reads.forgetRemovedIfIdle();
    readIfWanted();
    return this;
  }

  /** A laggard's own read finished: it moves up to where the head stood when the read started, or less if full. */
  private Behavior<Command> onLagRead(LagRead done) {
    long now = clock.millis();
    reads.finished();
    FeedMember m = done.member();
    if (members.get(m.ref) != m) {
      reads.forgetRemovedIfIdle();
      return this;
    }
    if (done.failure() != null) {
      getContext().getLog().warn("reading due messages of topic {} for group '{}' failed; retrying", topic, m.name,
          done.failure());
      m.readFailed(now);
      m.noReadBeforeMs = now + settings.retryBackoff().toMillis();
      wake.schedule(m.noReadBeforeMs + READ_AHEAD_MS, now);
      reads.forgetRemovedIfIdle();
      return this;
    }
    m.takeOwnRead(done.chunk(), done.bound(), now, reads::removedDuringRead);
    reads.forgetRemovedIfIdle();
    readIfWanted();
    return this;
  }
}
