package io.futureq.topic;

import io.futureq.group.ConsumerGroup;
import io.futureq.group.DueFeed;
import io.futureq.group.DueMessage;
import io.futureq.log.Barrier;
import io.futureq.log.proto.GroupAck;
import io.futureq.serialization.CborSerializable;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.cluster.sharding.typed.ClusterShardingSettings;
import org.apache.pekko.cluster.sharding.typed.ShardingEnvelope;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.apache.pekko.pattern.StatusReply;

/**
 * One topic (sharded by name): owns its due feed ({@link DueFeed}, which reads each due chunk once for
 * all groups and passes them the announcements of stored and removed messages) and its consumer groups,
 * batches the groups' acks into deletes, and removes expired messages on a timer set for the earliest
 * expiry.
 *
 * <p>The entity keeps the protocol and what passes through to the feed; its other handlers live in one
 * package-private class per concern, which holds that concern's state: {@link TopicGroups} (attaching
 * consumers, spawning and deleting groups), {@link DeleteBatcher} (acks into delete batches) and
 * {@link TopicExpiry} (the expiry timer).
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
   * Sharding's stop message (a move, a passivation): the entity writes the acks it gathered, waits until every
   * write it and its groups sent is answered ({@link InFlightWrites}), then stops.
   */
  public record HandOff() implements Command {}

  private record WritesSettled() implements Command {}

  /**
   * This replica's store was replaced by a snapshot install (now at log index {@code appliedIndex}):
   * what the groups read, hold and were told is stale. The entity stops and starts over, as when
   * its topic moves; consumers rejoin, and messages in flight are delivered again.
   */
  public record StoreReplaced(long appliedIndex) implements Command {}

  // Internal messages: the entity sends them to itself (adapted replies, pipe-to-self results, timer
  // ticks). Those its handler groups send and handle are package-private for them, not for callers.

  private record SettleApplied(Settle settle, Throwable failure) implements Command {}

  /** A group's acks, adapted; see {@link DeleteBatcher}. */
  record GroupAcked(ConsumerGroup.Acked acked) implements Command {}

  /** A durable group's registration was applied here, or failed; see {@link TopicGroups}. */
  record GroupReady(String group, Throwable failure) implements Command {}

  /** A group's actor stopped; see {@link TopicGroups}. */
  record GroupStopped(String group, ActorRef<ConsumerGroup.Command> ref) implements Command {}

  /** Time to write the acks gathered; see {@link DeleteBatcher}. */
  record Flush() implements Command {}

  /** The delete of {@code batch} was written, or failed; see {@link DeleteBatcher}. */
  record FlushDone(List<GroupAck> batch, Throwable failure) implements Command {}

  /** The earliest expiry known came; see {@link TopicExpiry}. */
  record ExpiryDue() implements Command {}

  /** What the scan of the TTL index found, or its failure; see {@link TopicExpiry}. */
  record ExpiryScanned(ExpiryScanner.Expired expired, Throwable failure) implements Command {}

  /** {@code count} expired messages were removed, or their removal failed; see {@link TopicExpiry}. */
  record ExpiryDone(int count, boolean more, long nextExpiryMs, Throwable failure) implements Command {}

  public static void init(ClusterSharding sharding, TopicContext context) {
    sharding.init(entity(ENTITY_KEY, topic -> context));
  }

  /**
   * One entity type per log shard ({@link #entityKey}) of {@code count}, each topic's entity with the context of its
   * shard as this node has it when the entity starts ({@code contexts}: null while this node holds no replica of the
   * shard). With {@code holders}, a shard's entities run only on the nodes that hold it ({@link HolderAllocation});
   * without, on any node (every node holds every shard).
   */
  public static void init(ClusterSharding sharding, ActorSystem<?> system, int count,
      IntFunction<TopicContext> contexts, ShardHolders holders) {
    for (int k = 0; k < count; k++) {
      int shard = k;
      Entity<Command, ShardingEnvelope<Command>> entity = entity(entityKey(k), topic -> {
        TopicContext context = contexts.apply(shard);
        if (context == null) {
          throw new IllegalStateException("topic " + topic + " started on a node without its log shard " + shard);
        }
        return context;
      });
      sharding.init(holders == null ? entity : entity.withAllocationStrategy(new HolderAllocation(k, holders,
          sharding.defaultShardAllocationStrategy(ClusterShardingSettings.create(system)))));
    }
  }

  private static Entity<Command, ShardingEnvelope<Command>> entity(EntityTypeKey<Command> key,
      Function<String, TopicContext> contexts) {
    return Entity.of(key, entity -> create(entity.getEntityId(), contexts.apply(entity.getEntityId()),
        entity.getShard(), InstantSource.system())).withStopMessage(new HandOff());
  }

  /** The entity type of log shard {@code shard}'s topics: shard 0's keeps the name it always had. */
  public static EntityTypeKey<Command> entityKey(int shard) {
    return shard == 0 ? ENTITY_KEY : EntityTypeKey.create(Command.class, "topic-s" + shard);
  }

  /**
   * The entity of {@code topic}, asking {@code shard} to passivate it. Its timers read {@code clock}: the
   * system clock, or in a test one that follows {@code ManualTime}.
   */
  static Behavior<Command> create(String topic, TopicContext context, ActorRef<ClusterSharding.ShardCommand> shard,
      InstantSource clock) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(
        timers -> new TopicEntity(ctx, timers, topic, context, shard, clock)));
  }

  private final ActorRef<ClusterSharding.ShardCommand> shard;
  private final String topic;
  private final TopicContext tc;
  private final InFlightWrites writes;
  private final ActorRef<DueFeed.Command> feed;
  private final TopicGroups groups;
  private final DeleteBatcher deletes;
  private final TopicExpiry expiry;

  private TopicEntity(ActorContext<Command> ctx, TimerScheduler<Command> timers, String topic, TopicContext tc,
      ActorRef<ClusterSharding.ShardCommand> shard, InstantSource clock) {
    super(ctx);
    // Listed first, before its feed and groups read the store: what is applied from now on is announced to it, and
    // what was applied before, they read (AppliedAnnouncer).
    tc.localTopics().started(topic, ctx.getSelf());
    this.shard = shard;
    this.topic = topic;
    this.writes = new InFlightWrites(tc.eventLog());
    this.tc = tc.withEventLog(writes);
    // Its groups cannot deliver without it: if it fails, the entity fails with it (a death pact) and
    // sharding starts the topic afresh on its next message, as after a move.
    this.feed = ctx.spawn(DueFeed.create(topic, tc.settings(), tc.store(), tc.bucketMs(), tc.storageExecutor(),
        tc.wakeTimer(), tc.askTimeout()), "due-feed");
    ctx.watch(feed);
    ActorRef<ConsumerGroup.Acked> ackSink = ctx.messageAdapter(ConsumerGroup.Acked.class, GroupAcked::new);
    this.groups = new TopicGroups(ctx, topic, this.tc, clock, ackSink, feed);
    this.deletes = new DeleteBatcher(ctx, timers, topic, this.tc);
    this.expiry = new TopicExpiry(ctx, timers, topic, this.tc, clock);
    expiry.start();
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Attach.class, groups::onAttach)
        .onMessage(MessagesStored.class, this::onMessagesStored)
        .onMessage(MessagesRemoved.class, this::onMessagesRemoved)
        .onMessage(GetStats.class, this::onGetStats)
        .onMessage(MessageMoved.class, this::onMessageMoved)
        .onMessage(GroupsDeleted.class, this::onGroupsDeleted)
        .onMessage(Wake.class, w -> this)
        .onMessage(HandOff.class, this::onHandOff)
        .onMessage(WritesSettled.class, settled -> Behaviors.stopped())
        .onMessage(StoreReplaced.class, this::onStoreReplaced)
        .onMessage(GroupAcked.class, deletes::onGroupAcked)
        .onMessage(Settle.class, this::onSettle)
        .onMessage(SettleApplied.class, this::onSettleApplied)
        .onMessage(GroupReady.class, groups::onGroupReady)
        .onMessage(GroupStopped.class, groups::onGroupStopped)
        .onMessage(Flush.class, deletes::onFlush)
        .onMessage(FlushDone.class, deletes::onFlushDone)
        .onMessage(ExpiryDue.class, expiry::onExpiryDue)
        .onMessage(ExpiryScanned.class, expiry::onExpiryScanned)
        .onMessage(ExpiryDone.class, expiry::onExpiryDone)
        .onSignal(PostStop.class, s -> onPostStop())
        .build();
  }

  private Behavior<Command> onMessagesStored(MessagesStored stored) {
    feed.tell(new DueFeed.Stored(stored.index(), stored.messages()));
    expiry.stored(stored.messages());
    return this;
  }

  private Behavior<Command> onMessagesRemoved(MessagesRemoved removed) {
    feed.tell(new DueFeed.Removed(removed.storageKeys()));
    return this;
  }

  private Behavior<Command> onGetStats(GetStats get) {
    StatsQuery.gather(tc, topic, groups.running(), getContext().getSystem().scheduler())
        .whenComplete((stats, failure) -> get.replyTo().tell(failure == null ? StatusReply.success(stats)
            : StatusReply.error("stats of topic " + topic + " failed: " + failure.getMessage())));
    return this;
  }

  /** A rescheduled message: groups drop its old key, and those that had not acked it get the new one. */
  private Behavior<Command> onMessageMoved(MessageMoved moved) {
    feed.tell(new DueFeed.Moved(moved.index(), moved.from(), moved.to(), moved.ackedBy()));
    expiry.stored(List.of(moved.to()));
    return this;
  }

  /** Acks not flushed yet are dropped too: a new group of the same name must not inherit them. */
  private Behavior<Command> onGroupsDeleted(GroupsDeleted deleted) {
    deletes.dropGroups(deleted.groups());
    groups.delete(deleted.groups(), deleted.why());
    return this;
  }

  private Behavior<Command> onStoreReplaced(StoreReplaced replaced) {
    shard.tell(new ClusterSharding.Passivate<>(getContext().getSelf()));
    return this;
  }

  private Behavior<Command> onSettle(Settle settle) {
    CompletableFuture<Long> applied = settle.index() == Settle.EVERYTHING_BEFORE
        ? Barrier.applied(tc.eventLog(), tc.eventLog(), tc.askTimeout())
        : tc.eventLog().whenApplied(settle.index(), tc.askTimeout());
    getContext().pipeToSelf(applied, (index, failure) -> new SettleApplied(settle, failure));
    return this;
  }

  /**
   * The replica applied the entry, so its removals are on their way through the feed, which asks the groups
   * behind them.
   */
  private Behavior<Command> onSettleApplied(SettleApplied applied) {
    if (applied.failure() != null) {
      applied.settle().replyTo().tell(StatusReply.error("topic " + topic + ": " + applied.failure().getMessage()));
    } else {
      feed.tell(new DueFeed.Settle(applied.settle().replyTo()));
    }
    return this;
  }

  private Behavior<Command> onHandOff(HandOff handOff) {
    deletes.flushOnStop();
    getContext().pipeToSelf(writes.settled().orTimeout(tc.askTimeout().toMillis(), TimeUnit.MILLISECONDS),
        (done, failure) -> new WritesSettled());
    return this;
  }

  private Behavior<Command> onPostStop() {
    tc.localTopics().stopped(topic, getContext().getSelf());
    deletes.flushOnStop();
    return this;
  }
}
