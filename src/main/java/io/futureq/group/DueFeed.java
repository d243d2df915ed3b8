package io.futureq.group;

import io.futureq.config.TopicSettings;
import io.futureq.storage.OrderedStore;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.apache.pekko.Done;
import org.apache.pekko.actor.Cancellable;
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

  private record HeadRead(DueReader.Chunk chunk, Throwable failure, List<Member> participants) implements Command {}

  private record LagRead(Member member, byte[] bound, DueReader.Chunk chunk, Throwable failure) implements Command {}

  private record Wake() implements Command {}

  private record GroupStopped(ActorRef<ConsumerGroup.Command> group) implements Command {}

  private record GroupSettled(long settle, Throwable failure) implements Command {}

  private record PendingSettle(ActorRef<StatusReply<Done>> replyTo, int answersDue) {}

  /** Where one group stands: what it has been handed, and whether it asked for more. */
  private static final class Member {
    final String name;
    final ActorRef<ConsumerGroup.Command> ref;
    final DueCursor cursor;
    boolean wants;
    long noReadBeforeMs;

    Member(String name, ActorRef<ConsumerGroup.Command> ref, DueCursor cursor) {
      this.name = name;
      this.ref = ref;
      this.cursor = cursor;
    }
  }

  public static Behavior<Command> create(String topic, TopicSettings settings, OrderedStore store, long bucketMs,
      Executor storageExecutor, WakeTimer wakeTimer, Duration askTimeout) {
    return Behaviors.setup(ctx -> new DueFeed(ctx, topic, settings, new DueReader(store, bucketMs), storageExecutor,
        wakeTimer, askTimeout));
  }

  private final String topic;
  private final TopicSettings settings;
  private final DueReader reader;
  private final Executor storageExecutor;
  private final WakeTimer wakeTimer;
  private final Duration askTimeout;
  /** The topic's read position: what the groups at the head have been handed. */
  private final DueCursor head;
  private final Map<ActorRef<ConsumerGroup.Command>, Member> members = new LinkedHashMap<>();
  /** Removed while a read ran: dropped from what that read returns. Cleared once no read runs. */
  private final Set<ByteBuffer> removedDuringReads = new HashSet<>();
  private int readsRunning;
  private final Map<Long, PendingSettle> settles = new HashMap<>();
  private long settlesStarted;
  private Cancellable wake;
  private long wakeAtMs = Long.MAX_VALUE;

  private DueFeed(ActorContext<Command> ctx, String topic, TopicSettings settings, DueReader reader,
      Executor storageExecutor, WakeTimer wakeTimer, Duration askTimeout) {
    super(ctx);
    this.topic = topic;
    this.settings = settings;
    this.reader = reader;
    this.storageExecutor = storageExecutor;
    this.wakeTimer = wakeTimer;
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
          if (wake != null) {
            wake.cancel();
          }
          return this;
        })
        .build();
  }

  private Behavior<Command> onJoin(Join join) {
    members.put(join.ref(), new Member(join.group(), join.ref(), new DueCursor(reader, join.startAfter())));
    getContext().watchWith(join.ref(), new GroupStopped(join.ref()));
    return this;
  }

  private Behavior<Command> onDemand(Demand demand) {
    Member member = members.get(demand.group());
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
    long now = System.currentTimeMillis();
    scheduleWake(head.stored(stored, now, m -> {}), now);
    for (Member m : members.values()) {
      handOverLate(m, late -> m.cursor.stored(stored, now, late));
    }
    readIfWanted();
    return this;
  }

  private Behavior<Command> onRemoved(Removed removed) {
    ConsumerGroup.MessagesRemoved forGroups = new ConsumerGroup.MessagesRemoved(removed.storageKeys());
    members.keySet().forEach(g -> g.tell(forGroups));
    if (readsRunning > 0) {
      removed.storageKeys().forEach(k -> removedDuringReads.add(ByteBuffer.wrap(k)));
    }
    return this;
  }

  /** Groups drop the old key; those that had not acked the message get the new one as if just stored. */
  private Behavior<Command> onMoved(Moved moved) {
    ConsumerGroup.MessagesRemoved gone = new ConsumerGroup.MessagesRemoved(List.of(moved.from()));
    members.keySet().forEach(g -> g.tell(gone));
    if (readsRunning > 0 && !moved.to().sameKey(moved.from())) {
      removedDuringReads.add(ByteBuffer.wrap(moved.from()));
    }
    Stored stored = new Stored(moved.index(), List.of(moved.to()));
    long now = System.currentTimeMillis();
    scheduleWake(head.stored(stored, now, m -> {}), now);
    for (Member m : members.values()) {
      if (!moved.ackedBy().contains(m.name)) {
        handOverLate(m, late -> m.cursor.stored(stored, now, late));
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
    wakeAtMs = Long.MAX_VALUE;
    head.woke();
    readIfWanted();
    return this;
  }

  /**
   * Starts the reads someone waits for: one of its own for each lagging group that asked for more, and
   * one shared by the groups at (or ahead of) the head if any of them asked and something may be due.
   */
  private void readIfWanted() {
    long now = System.currentTimeMillis();
    for (Member m : members.values()) {
      if (m.wants && !m.cursor.reading() && behindHead(m)) {
        if (now >= m.noReadBeforeMs) {
          readForLaggard(m, now);
        } else {
          scheduleWake(m.noReadBeforeMs + READ_AHEAD_MS, now);
        }
      }
    }
    if (head.reading() || !head.wantsRead(now, READ_AHEAD_MS)) {
      return;
    }
    List<Member> participants = new ArrayList<>();
    boolean wanted = false;
    for (Member m : members.values()) {
      if (!m.cursor.reading() && !behindHead(m)) {
        participants.add(m);
        wanted |= m.wants;
      }
    }
    if (!wanted) {
      return;
    }
    head.readStarted();
    participants.forEach(m -> m.cursor.readStarted());
    byte[] from = head.position();
    readsRunning++;
    CompletableFuture<DueReader.Chunk> read = CompletableFuture.supplyAsync(
        () -> reader.read(topic, from, null, now + READ_AHEAD_MS, now, settings.readChunk()), storageExecutor);
    getContext().pipeToSelf(read, (chunk, failure) -> new HeadRead(chunk, failure, participants));
  }

  private void readForLaggard(Member m, long now) {
    m.cursor.readStarted();
    byte[] from = m.cursor.position();
    byte[] bound = head.position();
    readsRunning++;
    CompletableFuture<DueReader.Chunk> read = CompletableFuture.supplyAsync(
        () -> reader.read(topic, from, bound, now + READ_AHEAD_MS, now, settings.readChunk()), storageExecutor);
    getContext().pipeToSelf(read, (chunk, failure) -> new LagRead(m, bound, chunk, failure));
  }

  /**
   * The shared read finished: each participant that asked for more takes its share and moves to the new
   * head; one that did not stays where it is (it lags from now on) unless its share is empty anyway.
   */
  private Behavior<Command> onHeadRead(HeadRead done) {
    long now = System.currentTimeMillis();
    readFinished();
    if (done.failure() != null) {
      getContext().getLog().warn("reading due messages of topic {} failed; retrying", topic, done.failure());
      scheduleWake(head.readFailed(now + settings.retryBackoff().toMillis(), now, m -> {}), now);
      for (Member m : done.participants()) {
        handOverLate(m, late -> m.cursor.movedTo(null, 0, now, late));
      }
      clearRemovedIfIdle();
      return this;
    }
    DueReader.Chunk chunk = done.chunk();
    scheduleWake(head.readDone(chunk, now, m -> {}), now);
    for (Member m : done.participants()) {
      if (members.get(m.ref) != m) {
        continue;
      }
      DueReader.Share share = chunk.forGroup(m.name, m.cursor.position(), this::removedDuringRead);
      boolean takes = m.wants || share.isEmpty();
      byte[] to = takes && chunk.lastKey() != null && DueKeys.compare(chunk.lastKey(), m.cursor.position()) > 0
          ? chunk.lastKey() : null;
      handOverLate(m, late -> m.cursor.movedTo(to, chunk.snapshotIndex(), now, late));
      if (takes && !share.isEmpty()) {
        handOver(m, share);
      }
    }
    clearRemovedIfIdle();
    readIfWanted();
    return this;
  }

  /** A laggard's own read finished: it moves up to where the head stood when the read started, or less if full. */
  private Behavior<Command> onLagRead(LagRead done) {
    long now = System.currentTimeMillis();
    readFinished();
    Member m = done.member();
    if (members.get(m.ref) != m) {
      clearRemovedIfIdle();
      return this;
    }
    if (done.failure() != null) {
      getContext().getLog().warn("reading due messages of topic {} for group '{}' failed; retrying", topic, m.name,
          done.failure());
      handOverLate(m, late -> m.cursor.movedTo(null, 0, now, late));
      m.noReadBeforeMs = now + settings.retryBackoff().toMillis();
      scheduleWake(m.noReadBeforeMs + READ_AHEAD_MS, now);
      clearRemovedIfIdle();
      return this;
    }
    DueReader.Chunk chunk = done.chunk();
    DueReader.Share share = chunk.forGroup(m.name, null, this::removedDuringRead);
    byte[] to = chunk.full() ? chunk.lastKey() : done.bound();
    handOverLate(m, late -> m.cursor.movedTo(to, chunk.snapshotIndex(), now, late));
    if (!share.isEmpty()) {
      handOver(m, share);
    }
    clearRemovedIfIdle();
    readIfWanted();
    return this;
  }

  private void handOver(Member m, DueReader.Share share) {
    m.wants = false;
    m.ref.tell(new ConsumerGroup.Due(share.messages(), share.delayed(), true));
  }

  /** Runs {@code step}, then hands the group at once what it found slipped behind the group's position. */
  private static void handOverLate(Member m, Consumer<Consumer<DueMessage>> step) {
    List<DueMessage> late = new ArrayList<>(0);
    step.accept(late::add);
    if (!late.isEmpty()) {
      m.ref.tell(new ConsumerGroup.Due(late, List.of(), false));
    }
  }

  private boolean behindHead(Member m) {
    return DueKeys.compare(m.cursor.position(), head.position()) < 0;
  }

  private boolean removedDuringRead(byte[] key) {
    return !removedDuringReads.isEmpty() && removedDuringReads.contains(ByteBuffer.wrap(key));
  }

  private void readFinished() {
    readsRunning--;
  }

  private void clearRemovedIfIdle() {
    if (readsRunning == 0) {
      removedDuringReads.clear();
    }
  }

  /**
   * Wakes the feed a little before {@code atMs}, on the precise timer, unless an earlier wake is armed: a
   * wake with nothing to do only costs a read, and the read it starts arms the next one.
   */
  private void scheduleWake(long atMs, long now) {
    if (atMs == DueCursor.NO_WAKE) {
      return;
    }
    long at = Math.min(atMs - READ_AHEAD_MS, now + MAX_TIMER_MS);
    if (at >= wakeAtMs) {
      return;
    }
    if (wake != null) {
      wake.cancel();
    }
    wakeAtMs = at;
    ActorRef<Command> self = getContext().getSelf();
    wake = wakeTimer.at(at, () -> self.tell(new Wake()));
  }

  /** Storage keys in unsigned order, null (before the first key) lowest. */
  static final class DueKeys {
    private DueKeys() {}

    static int compare(byte[] a, byte[] b) {
      if (a == null || b == null) {
        return a == null ? (b == null ? 0 : -1) : 1;
      }
      return Arrays.compareUnsigned(a, b);
    }
  }
}
