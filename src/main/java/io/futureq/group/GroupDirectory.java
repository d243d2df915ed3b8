package io.futureq.group;

import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;

/** Finds (creating if needed) a topic's group and adds a consumer to it, wherever the topic lives. */
public interface GroupDirectory {

  /**
   * Adds a consumer to {@code group} of {@code topic} ("" for the universal subscribers).
   * Completes with the group once the consumer is added; fails if the topic could not be reached or
   * the group could not be created durably.
   */
  CompletionStage<ActorRef<ConsumerGroup.Command>> attach(String topic, String group, ConsumerGroup.AddConsumer add);
}
