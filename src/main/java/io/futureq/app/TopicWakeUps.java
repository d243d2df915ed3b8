package io.futureq.app;

import io.futureq.storage.OrderedStore;
import io.futureq.topic.TopicEntity;
import io.futureq.topic.TopicRouter;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Subscribe;

/**
 * Makes sure every topic with pending messages has a running entity: at start, so expiry timers run from boot; and
 * clustered, when a member was removed (its topics' entities start elsewhere at once, not at their next message) and
 * every {@code futureq.topic.wake-interval} as a backstop. A topic that starts to have messages is woken by the
 * leading replica's announcer; publishes send nothing to sharding.
 */
final class TopicWakeUps {
  private TopicWakeUps() {}

  /** Starts the entity of every topic with stored messages. */
  static void wakeAll(List<OrderedStore> stores, TopicRouter router) {
    StoredTopics.forEach(stores, meta -> {
      if (meta.getPending() > 0) {
        router.tell(meta.getName(), new TopicEntity.Wake());
      }
    });
  }

  static void everyIntervalAndOnMemberRemoved(ActorSystem<Guardian.Command> system, Duration interval,
      Supplier<List<OrderedStore>> stores, TopicRouter router) {
    system.scheduler().scheduleWithFixedDelay(interval, interval, () -> wakeAll(stores.get(), router),
        system.executionContext());
    Guardian.start(system, "topic-wake-ups", onMemberRemoved(stores, router), Guardian.OnFailure.RESTART);
  }

  private static Behavior<ClusterEvent.MemberRemoved> onMemberRemoved(Supplier<List<OrderedStore>> stores,
      TopicRouter router) {
    return Behaviors.setup(ctx -> {
      Cluster.get(ctx.getSystem()).subscriptions().tell(Subscribe.create(ctx.getSelf(),
          ClusterEvent.MemberRemoved.class));
      return Behaviors.receiveMessage(removed -> {
        wakeAll(stores.get(), router);
        return Behaviors.same();
      });
    });
  }
}
