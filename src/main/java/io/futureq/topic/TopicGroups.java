package io.futureq.topic;

import io.futureq.group.ConsumerGroup;
import io.futureq.group.DueFeed;
import io.futureq.group.GroupContext;
import io.futureq.group.UniversalFanout;
import io.futureq.storage.StorageKeys;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.pattern.StatusReply;

/**
 * The consumer groups of one topic, held by its {@link TopicEntity}: a consumer attaches to a running group at
 * once; a durable group starts once its registration is applied here (consumers that attach meanwhile wait for
 * it), the universal fan-out at once, from the messages due now on. Deleted groups end their consumers' streams.
 * Runs on the entity's thread, as its handlers.
 */
final class TopicGroups {
  private final ActorContext<TopicEntity.Command> ctx;
  private final String topic;
  private final TopicContext tc;
  private final InstantSource clock;
  private final ActorRef<ConsumerGroup.Acked> ackSink;
  private final ActorRef<DueFeed.Command> feed;
  private final Map<String, ActorRef<ConsumerGroup.Command>> groups = new HashMap<>();
  private final Map<String, List<TopicEntity.Attach>> waitingForGroup = new HashMap<>();
  /** Names each group's actor uniquely: a deleted group's name may be taken again before its actor stopped. */
  private long groupsSpawned;

  TopicGroups(ActorContext<TopicEntity.Command> ctx, String topic, TopicContext tc, InstantSource clock,
      ActorRef<ConsumerGroup.Acked> ackSink, ActorRef<DueFeed.Command> feed) {
    this.ctx = ctx;
    this.topic = topic;
    this.tc = tc;
    this.clock = clock;
    this.ackSink = ackSink;
    this.feed = feed;
  }

  /** The groups running now. */
  Collection<ActorRef<ConsumerGroup.Command>> running() {
    return List.copyOf(groups.values());
  }

  Behavior<TopicEntity.Command> onAttach(TopicEntity.Attach attach) {
    ActorRef<ConsumerGroup.Command> group = groups.get(attach.group());
    if (group != null) {
      return join(group, attach);
    }
    if (attach.group().isEmpty()) {
      long nowBucket = clock.millis() / tc.bucketMs();
      byte[] start = StorageKeys.message(StorageKeys.topicHash(topic), nowBucket, 0);
      return join(spawn("", start), attach);
    }
    List<TopicEntity.Attach> waiting = waitingForGroup.get(attach.group());
    if (waiting != null) {
      waiting.add(attach);
      return Behaviors.same();
    }
    waitingForGroup.put(attach.group(), new ArrayList<>(List.of(attach)));
    ctx.pipeToSelf(GroupRegistration.register(tc, topic, attach.group()),
        (ok, failure) -> new TopicEntity.GroupReady(attach.group(), failure));
    return Behaviors.same();
  }

  Behavior<TopicEntity.Command> onGroupReady(TopicEntity.GroupReady ready) {
    List<TopicEntity.Attach> waiting = waitingForGroup.remove(ready.group());
    if (ready.failure() != null) {
      String why = "cannot create group '" + ready.group() + "' of topic " + topic
          + ": " + ready.failure().getMessage();
      waiting.forEach(a -> a.replyTo().tell(StatusReply.error(why)));
      return Behaviors.same();
    }
    ActorRef<ConsumerGroup.Command> group = spawn(ready.group(), null);
    waiting.forEach(a -> join(group, a));
    return Behaviors.same();
  }

  /** Only the group that stopped: a deleted group's successor of the same name may already run. */
  Behavior<TopicEntity.Command> onGroupStopped(TopicEntity.GroupStopped stopped) {
    groups.remove(stopped.group(), stopped.ref());
    return Behaviors.same();
  }

  /** The groups {@code names} were deleted: those running here end their consumers' streams, saying {@code why}. */
  void delete(List<String> names, String why) {
    for (String name : names) {
      ActorRef<ConsumerGroup.Command> group = groups.remove(name);
      if (group != null) {
        group.tell(new ConsumerGroup.Delete(why));
      }
    }
  }

  private Behavior<TopicEntity.Command> join(ActorRef<ConsumerGroup.Command> group, TopicEntity.Attach attach) {
    group.tell(attach.add());
    attach.replyTo().tell(StatusReply.success(group));
    return Behaviors.same();
  }

  private ActorRef<ConsumerGroup.Command> spawn(String name, byte[] startAfter) {
    GroupContext gc = new GroupContext(topic, name, tc.groupSettings(), tc.settings(), tc.eventLog(),
        tc.maxConsumersPerGroup(), tc.wakeTimer(), ackSink, feed);
    ActorRef<ConsumerGroup.Command> group = name.isEmpty()
        ? ctx.spawn(UniversalFanout.create(gc, startAfter), "universal")
        : ctx.spawn(ConsumerGroup.create(gc, startAfter), "group-" + name + "-" + ++groupsSpawned);
    ctx.watchWith(group, new TopicEntity.GroupStopped(name, group));
    groups.put(name, group);
    return group;
  }
}
