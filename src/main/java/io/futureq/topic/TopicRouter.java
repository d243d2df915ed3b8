package io.futureq.topic;

import io.futureq.group.ConsumerGroup;
import io.futureq.group.GroupDirectory;
import io.futureq.log.LogShards;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef;

/** The one way to reach a topic entity, wherever Cluster Sharding placed it. */
public final class TopicRouter implements GroupDirectory {
  /**
   * Longest one attach waits for its topic; the subscriber session tries again after it. An attach sent while the
   * topic's host has just died goes to that host and is lost (a node learns of the death only when the member is
   * removed), and waiting the whole request timeout for it made a consumer of the dead node's topics wait 10 s
   * after the topic ran elsewhere. A topic that takes longer to start is attached by a later attempt.
   */
  static final Duration ATTACH_ATTEMPT = Duration.ofSeconds(2);

  private final ClusterSharding sharding;
  private final int logShards;
  private final Duration askTimeout;
  private final Duration attachTimeout;

  /** @param logShards how many log shards: each has its own entity type ({@link TopicEntity#entityKey}) */
  public TopicRouter(ClusterSharding sharding, int logShards, Duration askTimeout) {
    this.sharding = sharding;
    this.logShards = logShards;
    this.askTimeout = askTimeout;
    this.attachTimeout = askTimeout.compareTo(ATTACH_ATTEMPT) < 0 ? askTimeout : ATTACH_ATTEMPT;
  }

  public void tell(String topic, TopicEntity.Command command) {
    entity(topic).tell(command);
  }

  @Override
  public CompletionStage<ActorRef<ConsumerGroup.Command>> attach(String topic, String group,
      ConsumerGroup.AddConsumer add) {
    return entity(topic)
        .askWithStatus(replyTo -> new TopicEntity.Attach(group, add, replyTo), attachTimeout);
  }

  /** See {@link TopicEntity.Settle}; fails after {@code within}. */
  public CompletionStage<Done> settle(String topic, long index, Duration within) {
    return entity(topic)
        .askWithStatus(replyTo -> new TopicEntity.Settle(index, replyTo), within);
  }

  private EntityRef<TopicEntity.Command> entity(String topic) {
    return sharding.entityRefFor(TopicEntity.entityKey(LogShards.indexOf(topic, logShards)), topic);
  }

  public CompletionStage<TopicStats> stats(String topic) {
    return entity(topic)
        .askWithStatus(TopicEntity.GetStats::new, askTimeout);
  }
}
