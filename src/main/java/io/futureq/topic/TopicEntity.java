package io.futureq.topic;

import io.futureq.serialization.CborSerializable;
import com.google.protobuf.ByteString;
import io.futureq.group.ConsumerGroup;
import io.futureq.group.DueFeed;
import io.futureq.group.DueMessage;
import io.futureq.group.GroupContext;
import io.futureq.group.UniversalFanout;
import io.futureq.log.Barrier;
import io.futureq.log.Failures;
import io.futureq.log.LogUnavailableException;
import io.futureq.log.proto.DeleteBatch;
import io.futureq.log.proto.ExpireMessages;
import io.futureq.log.proto.GroupAck;
import io.futureq.log.proto.LogCommand;
import io.futureq.metrics.TopicMetrics;
import io.futureq.storage.StorageKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.apache.pekko.pattern.StatusReply;

/**
 * One topic (sharded by name): owns its due feed ({@link DueFeed}, which reads each due chunk once for
 * all groups and passes them the announcements of stored and removed messages) and its consumer groups,
 * batches the groups' acks into deletes, and removes expired messages on a timer set for the earliest
 * expiry.
 */
public final class TopicEntity extends AbstractBehavior<TopicEntity.Command> {
  public static final EntityTypeKey<Command> ENTITY_KEY = EntityTypeKey.create(Command.class, "topic");

  public sealed interface Command extends CborSerializable {}

  /** Adds a consumer to a group ("" for universal), creating a durable group on first use. */
  public record Attach(String group, ConsumerGroup.AddConsumer add,
      ActorRef<StatusReply<ActorRef<ConsumerGroup.Command>>> replyTo) implements Command {}

  /** Messages of this topic committed at log {@code index}. */
  public record MessagesStored(long index, List<DueMessage> messages) implements Command {
    public MessagesStored {
      messages = List.copyOf(messages);
    }
  }

  /** Messages of this topic cancelled or expired. */
  public record MessagesRemoved(List<byte[]> storageKeys) implements Command {
    public MessagesRemoved {
      storageKeys = List.copyOf(storageKeys);
    }
  }

  public record GetStats(ActorRef<StatusReply<TopicStats>> replyTo) implements Command {}

  /**
   * Answered once this host's replica has applied log entry {@code index} (or, with
   * {@link #EVERYTHING_BEFORE}, a barrier it appends, which orders after everything committed before)
   * and every group of the topic has taken in what it removed: a cancel is answered only then, so that
   * no group delivers the cancelled message after its answer, however far this host's replica lagged
   * the write. Reschedules, purges and deletes likewise.
   */
  public record Settle(long index, ActorRef<StatusReply<Done>> replyTo) implements Command {
    public static final long EVERYTHING_BEFORE = 0;
  }

  /** A message rescheduled at log {@code index}: it left key {@code from}; {@code ackedBy} had acked it. */
  public record MessageMoved(long index, byte[] from, DueMessage to, List<String> ackedBy) implements Command {
    public MessageMoved {
      ackedBy = List.copyOf(ackedBy);
    }
  }

  /** Durable groups deleted (or their topic): their streams end, saying {@code why}. */
  public record GroupsDeleted(List<String> groups, String why) implements Command {
    public GroupsDeleted {
      groups = List.copyOf(groups);
    }
  }

  /** Starts the entity (at boot, for topics with stored messages) so its expiry timer runs. */
  public record Wake() implements Command {}

  /**
   * This replica's store was replaced by a snapshot install (now at log index {@code appliedIndex}):
   * what the groups read, hold and were told is stale. The entity stops and starts over, as when
   * its topic moves; consumers rejoin, and messages in flight are delivered again.
   */
  public record StoreReplaced(long appliedIndex) implements Command {}

  private record GroupAcked(ConsumerGroup.Acked acked) implements Command {}

  private record SettleApplied(Settle settle, Throwable failure) implements Command {}

  private record GroupReady(String group, Throwable failure) implements Command {}

  private record GroupStopped(String group, ActorRef<ConsumerGroup.Command> ref) implements Command {}

  private record Flush() implements Command {}

  private record FlushDone(List<GroupAck> batch, Throwable failure) implements Command {}

  private record ExpiryDue() implements Command {}

  private record ExpiryScanned(ExpiryScanner.Expired expired, Throwable failure) implements Command {}

  private record ExpiryDone(int count, boolean more, long nextExpiryMs, Throwable failure) implements Command {}

  public static void init(ClusterSharding sharding, TopicContext context) {
    sharding.init(Entity.of(ENTITY_KEY, entity -> create(entity.getEntityId(), context, entity.getShard())));
  }

  private static Behavior<Command> create(String topic, TopicContext context,
      ActorRef<ClusterSharding.ShardCommand> shard) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> new TopicEntity(ctx, timers, topic, context, shard)));
  }

  private final TimerScheduler<Command> timers;
  private final ActorRef<ClusterSharding.ShardCommand> shard;
  private final String topic;
  private final TopicContext tc;
  private final ActorRef<ConsumerGroup.Acked> ackSink;
  private final ActorRef<DueFeed.Command> feed;
  private final Map<String, ActorRef<ConsumerGroup.Command>> groups = new HashMap<>();
  private final Map<String, List<Attach>> waitingForGroup = new HashMap<>();
  private List<GroupAck> pendingAcks = new ArrayList<>();
  private boolean flushing;
  /** Acks of keyed messages are waiting: the next flush goes at once. */
  private boolean keyedPending;
  private boolean expiring;
  private boolean rescanExpiry;
  private long expiryTimerAt = Long.MAX_VALUE;
  /** Names each group's actor uniquely: a deleted group's name may be taken again before its actor stopped. */
  private long groupsSpawned;

  private TopicEntity(ActorContext<Command> ctx, TimerScheduler<Command> timers, String topic, TopicContext tc,
      ActorRef<ClusterSharding.ShardCommand> shard) {
    super(ctx);
    this.timers = timers;
    this.shard = shard;
    this.topic = topic;
    this.tc = tc;
    this.ackSink = ctx.messageAdapter(ConsumerGroup.Acked.class, GroupAcked::new);
    // Its groups cannot deliver without it: if it fails, the entity fails with it (a death pact) and
    // sharding starts the topic afresh on its next message, as after a move.
    this.feed = ctx.spawn(DueFeed.create(topic, tc.settings(), tc.store(), tc.bucketMs(), tc.storageExecutor(),
        tc.wakeTimer(), tc.askTimeout()), "due-feed");
    ctx.watch(feed);
    tc.localTopics().started(topic, ctx.getSelf());
    ctx.getSelf().tell(new ExpiryDue());
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Attach.class, this::onAttach)
        .onMessage(MessagesStored.class, this::onMessagesStored)
        .onMessage(MessagesRemoved.class, this::onMessagesRemoved)
        .onMessage(GetStats.class, this::onGetStats)
        .onMessage(MessageMoved.class, this::onMessageMoved)
        .onMessage(GroupsDeleted.class, this::onGroupsDeleted)
        .onMessage(Wake.class, w -> this)
        .onMessage(StoreReplaced.class, this::onStoreReplaced)
        .onMessage(GroupAcked.class, this::onGroupAcked)
        .onMessage(Settle.class, this::onSettle)
        .onMessage(SettleApplied.class, this::onSettleApplied)
        .onMessage(GroupReady.class, this::onGroupReady)
        .onMessage(GroupStopped.class, this::onGroupStopped)
        .onMessage(Flush.class, this::onFlush)
        .onMessage(FlushDone.class, this::onFlushDone)
        .onMessage(ExpiryDue.class, this::onExpiryDue)
        .onMessage(ExpiryScanned.class, this::onExpiryScanned)
        .onMessage(ExpiryDone.class, this::onExpiryDone)
        .onSignal(PostStop.class, s -> onPostStop())
        .build();
  }

  private Behavior<Command> onAttach(Attach attach) {
    ActorRef<ConsumerGroup.Command> group = groups.get(attach.group());
    if (group != null) {
      return join(group, attach);
    }
    if (attach.group().isEmpty()) {
      long nowBucket = System.currentTimeMillis() / tc.bucketMs();
      byte[] start = StorageKeys.message(StorageKeys.topicHash(topic), nowBucket, 0);
      return join(spawnGroup("", start), attach);
    }
    List<Attach> waiting = waitingForGroup.get(attach.group());
    if (waiting != null) {
      waiting.add(attach);
      return this;
    }
    waitingForGroup.put(attach.group(), new ArrayList<>(List.of(attach)));
    getContext().pipeToSelf(GroupRegistration.register(tc, topic, attach.group()),
        (ok, failure) -> new GroupReady(attach.group(), failure));
    return this;
  }

  private Behavior<Command> join(ActorRef<ConsumerGroup.Command> group, Attach attach) {
    group.tell(attach.add());
    attach.replyTo().tell(StatusReply.success(group));
    return this;
  }

  private Behavior<Command> onGroupReady(GroupReady ready) {
    List<Attach> waiting = waitingForGroup.remove(ready.group());
    if (ready.failure() != null) {
      String why = "cannot create group '" + ready.group() + "' of topic " + topic
          + ": " + ready.failure().getMessage();
      waiting.forEach(a -> a.replyTo().tell(StatusReply.error(why)));
      return this;
    }
    ActorRef<ConsumerGroup.Command> group = spawnGroup(ready.group(), null);
    waiting.forEach(a -> join(group, a));
    return this;
  }

  private ActorRef<ConsumerGroup.Command> spawnGroup(String name, byte[] startAfter) {
    GroupContext gc = new GroupContext(topic, name, tc.groupSettings(), tc.settings(), tc.eventLog(),
        tc.maxConsumersPerGroup(), tc.wakeTimer(), ackSink, feed);
    ActorRef<ConsumerGroup.Command> group = name.isEmpty()
        ? getContext().spawn(UniversalFanout.create(gc, startAfter), "universal")
        : getContext().spawn(ConsumerGroup.create(gc, startAfter), "group-" + name + "-" + ++groupsSpawned);
    getContext().watchWith(group, new GroupStopped(name, group));
    groups.put(name, group);
    return group;
  }

  /** Only the group that stopped: a deleted group's successor of the same name may already run. */
  private Behavior<Command> onGroupStopped(GroupStopped stopped) {
    groups.remove(stopped.group(), stopped.ref());
    return this;
  }

  private Behavior<Command> onMessagesStored(MessagesStored stored) {
    feed.tell(new DueFeed.Stored(stored.index(), stored.messages()));
    long earliest = Long.MAX_VALUE;
    for (DueMessage m : stored.messages()) {
      if (m.message().getExpireMs() > 0) {
        earliest = Math.min(earliest, m.message().getExpireMs());
      }
    }
    armExpiryTimer(earliest);
    return this;
  }

  private Behavior<Command> onStoreReplaced(StoreReplaced replaced) {
    shard.tell(new ClusterSharding.Passivate<>(getContext().getSelf()));
    return this;
  }

  private Behavior<Command> onMessagesRemoved(MessagesRemoved removed) {
    feed.tell(new DueFeed.Removed(removed.storageKeys()));
    return this;
  }

  private Behavior<Command> onSettle(Settle settle) {
    CompletableFuture<Long> applied = settle.index() == Settle.EVERYTHING_BEFORE
        ? Barrier.applied(tc.eventLog(), tc.eventLog(), tc.askTimeout())
        : tc.eventLog().whenApplied(settle.index(), tc.askTimeout());
    getContext().pipeToSelf(applied, (index, failure) -> new SettleApplied(settle, failure));
    return this;
  }

  /** The replica applied the entry, so its removals are on their way through the feed, which asks the groups behind them. */
  private Behavior<Command> onSettleApplied(SettleApplied applied) {
    if (applied.failure() != null) {
      applied.settle().replyTo().tell(StatusReply.error("topic " + topic + ": " + applied.failure().getMessage()));
    } else {
      feed.tell(new DueFeed.Settle(applied.settle().replyTo()));
    }
    return this;
  }

  private Behavior<Command> onGetStats(GetStats get) {
    StatsQuery.gather(tc, topic, groups.values(), getContext().getSystem().scheduler())
        .whenComplete((stats, failure) -> get.replyTo().tell(failure == null ? StatusReply.success(stats)
            : StatusReply.error("stats of topic " + topic + " failed: " + failure.getMessage())));
    return this;
  }

  /** A rescheduled message: groups drop its old key, and those that had not acked it get the new one. */
  private Behavior<Command> onMessageMoved(MessageMoved moved) {
    feed.tell(new DueFeed.Moved(moved.index(), moved.from(), moved.to(), moved.ackedBy()));
    armExpiryTimer(moved.to().message().getExpireMs() > 0 ? moved.to().message().getExpireMs() : Long.MAX_VALUE);
    return this;
  }

  /** Acks not flushed yet are dropped too: a new group of the same name must not inherit them. */
  private Behavior<Command> onGroupsDeleted(GroupsDeleted deleted) {
    pendingAcks.removeIf(ack -> deleted.groups().contains(ack.getGroup()));
    for (String name : deleted.groups()) {
      ActorRef<ConsumerGroup.Command> group = groups.remove(name);
      if (group != null) {
        group.tell(new ConsumerGroup.Delete(deleted.why()));
      }
    }
    return this;
  }

  private Behavior<Command> onGroupAcked(GroupAcked acked) {
    for (byte[] key : acked.acked().storageKeys()) {
      pendingAcks.add(GroupAck.newBuilder().setTopic(topic).setGroup(acked.acked().group())
          .setStorageKey(ByteString.copyFrom(key)).build());
    }
    if (acked.acked().keyed()) {
      // A key is free again only once its message's delete is written: no batching delay for those.
      keyedPending = true;
      return flushing ? this : onFlush(new Flush());
    }
    if (!timers.isTimerActive("flush")) {
      timers.startSingleTimer("flush", new Flush(), tc.settings().deleteBatchInterval());
    }
    return this;
  }

  private Behavior<Command> onFlush(Flush flush) {
    if (flushing || pendingAcks.isEmpty()) {
      return this;
    }
    flushing = true;
    keyedPending = false;
    timers.cancel("flush");
    List<GroupAck> batch = pendingAcks;
    pendingAcks = new ArrayList<>();
    LogCommand delete = LogCommand.newBuilder().setDelete(DeleteBatch.newBuilder().addAllAcks(batch)).build();
    getContext().pipeToSelf(tc.eventLog().append(delete), (ok, failure) -> new FlushDone(batch, failure));
    return this;
  }

  private Behavior<Command> onFlushDone(FlushDone done) {
    flushing = false;
    Duration next = keyedPending ? Duration.ZERO : tc.settings().deleteBatchInterval();
    if (done.failure() != null) {
      Throwable cause = Failures.cause(done.failure());
      if (cause instanceof LogUnavailableException) {
        // What every write leader change does to a batch in flight: a line, not a stack trace.
        getContext().getLog().warn("deleting {} acked messages of topic {} failed ({}); retrying",
            done.batch().size(), topic, cause.getMessage());
      } else {
        getContext().getLog().warn("deleting {} acked messages of topic {} failed; retrying", done.batch().size(),
            topic, cause);
      }
      done.batch().addAll(pendingAcks);
      pendingAcks = new ArrayList<>(done.batch());
      next = tc.settings().retryBackoff();
    }
    if (!pendingAcks.isEmpty()) {
      timers.startSingleTimer("flush", new Flush(), next);
    }
    return this;
  }

  private Behavior<Command> onExpiryDue(ExpiryDue due) {
    expiryTimerAt = Long.MAX_VALUE;
    if (expiring) {
      rescanExpiry = true;
      return this;
    }
    expiring = true;
    long now = System.currentTimeMillis();
    CompletableFuture<ExpiryScanner.Expired> scan = CompletableFuture.supplyAsync(
        () -> ExpiryScanner.scan(tc.store(), topic, now, tc.settings().expiryChunk()), tc.storageExecutor());
    getContext().pipeToSelf(scan, ExpiryScanned::new);
    return this;
  }

  private Behavior<Command> onExpiryScanned(ExpiryScanned scanned) {
    if (scanned.failure() != null) {
      return onExpiryDone(new ExpiryDone(0, false, System.currentTimeMillis()
          + tc.settings().retryBackoff().toMillis(), scanned.failure()));
    }
    ExpiryScanner.Expired expired = scanned.expired();
    boolean more = expired.storageKeys().size() >= tc.settings().expiryChunk();
    if (expired.storageKeys().isEmpty()) {
      return onExpiryDone(new ExpiryDone(0, false, expired.nextExpiryMs(), null));
    }
    ExpireMessages.Builder expire = ExpireMessages.newBuilder().setTopic(topic);
    expired.storageKeys().forEach(k -> expire.addStorageKeys(ByteString.copyFrom(k)));
    int count = expired.storageKeys().size();
    getContext().pipeToSelf(tc.eventLog().append(LogCommand.newBuilder().setExpire(expire).build()),
        (ok, failure) -> new ExpiryDone(count, more, expired.nextExpiryMs(), failure));
    return this;
  }

  private Behavior<Command> onExpiryDone(ExpiryDone done) {
    expiring = false;
    long next = done.nextExpiryMs();
    if (done.failure() != null) {
      getContext().getLog().warn("removing expired messages of topic {} failed; retrying", topic, done.failure());
      next = System.currentTimeMillis() + tc.settings().retryBackoff().toMillis();
    } else {
      TopicMetrics.of(topic).expired.increment(done.count());
    }
    boolean again = done.more() || rescanExpiry;
    rescanExpiry = false;
    armExpiryTimer(again ? System.currentTimeMillis() : next);
    return this;
  }

  private void armExpiryTimer(long atMs) {
    if (atMs == Long.MAX_VALUE || atMs >= expiryTimerAt) {
      return;
    }
    expiryTimerAt = atMs;
    // Capped like every long timer: Pekko refuses waits beyond about 24 days; an early tick re-arms.
    timers.startSingleTimer("expiry", new ExpiryDue(),
        Duration.ofMillis(Math.min(Duration.ofHours(1).toMillis(), Math.max(0, atMs - System.currentTimeMillis()))));
  }

  /** Acks collected but not flushed are written on the way out; the log drains before it closes. */
  private Behavior<Command> onPostStop() {
    tc.localTopics().stopped(topic, getContext().getSelf());
    if (!pendingAcks.isEmpty()) {
      tc.eventLog().append(LogCommand.newBuilder().setDelete(DeleteBatch.newBuilder().addAllAcks(pendingAcks)).build());
    }
    return this;
  }
}
