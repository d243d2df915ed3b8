package io.futureq.topic;

import io.futureq.group.ConsumerGroup;
import io.futureq.group.GroupDirectory;
import java.time.Duration;
import org.apache.pekko.Done;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;

/** The one way to reach a topic entity, wherever Cluster Sharding placed it. */
public final class TopicRouter implements GroupDirectory {
  private final ClusterSharding sharding;
  private final Duration askTimeout;

  public TopicRouter(ClusterSharding sharding, Duration askTimeout) {
    this.sharding = sharding;
    this.askTimeout = askTimeout;
  }

  public void tell(String topic, TopicEntity.Command command) {
    sharding.entityRefFor(TopicEntity.ENTITY_KEY, topic).tell(command);
  }

  @Override
  public CompletionStage<ActorRef<ConsumerGroup.Command>> attach(String topic, String group,
      ConsumerGroup.AddConsumer add) {
    return sharding.entityRefFor(TopicEntity.ENTITY_KEY, topic)
        .askWithStatus(replyTo -> new TopicEntity.Attach(group, add, replyTo), askTimeout);
  }

  /** See {@link TopicEntity.Settle}; fails after {@code within}. */
  public CompletionStage<Done> settle(String topic, long index, Duration within) {
    return sharding.entityRefFor(TopicEntity.ENTITY_KEY, topic)
        .askWithStatus(replyTo -> new TopicEntity.Settle(index, replyTo), within);
  }

  public CompletionStage<TopicStats> stats(String topic) {
    return sharding.entityRefFor(TopicEntity.ENTITY_KEY, topic)
        .askWithStatus(TopicEntity.GetStats::new, askTimeout);
  }
}
