package io.futureq.group;

import io.futureq.config.GroupSettings;
import io.futureq.config.TopicSettings;
import io.futureq.log.BrokerStateMachine;
import io.futureq.log.EventLog;
import io.futureq.storage.OrderedStore;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What a consumer group needs from its topic.
 *
 * @param group the group name; empty for the universal subscribers (fan-out, best effort)
 * @param wakeTimer wakes the group when its next message is due
 * @param ackSink where the group reports messages it is done with
 * @param catchUpSink the topic, asked by a group whose replica caught up after a lapse (see {@link ReplicaCatchUp})
 */
public record GroupContext(
    String topic,
    String group,
    GroupSettings settings,
    TopicSettings topicSettings,
    OrderedStore store,
    long bucketMs,
    Executor storageExecutor,
    EventLog eventLog,
    int maxConsumers,
    WakeTimer wakeTimer,
    ActorRef<ConsumerGroup.Acked> ackSink,
    ActorRef<ConsumerGroup.CatchUp> catchUpSink) {

  boolean deadLetterTopic() {
    return topic.endsWith(BrokerStateMachine.DEAD_LETTER_SUFFIX);
  }
}
