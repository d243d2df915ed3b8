package io.futureq.group;

import io.futureq.config.GroupSettings;
import io.futureq.config.TopicSettings;
import io.futureq.log.BrokerStateMachine;
import io.futureq.log.EventLog;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What a consumer group needs from its topic.
 *
 * @param group the group name; empty for the universal subscribers (fan-out, best effort)
 * @param wakeTimer wakes the group when a message it holds is due
 * @param ackSink where the group reports messages it is done with
 * @param feed the topic's due feed: it hands the group its due messages, and answers its catch-up questions
 */
public record GroupContext(
    String topic,
    String group,
    GroupSettings settings,
    TopicSettings topicSettings,
    EventLog eventLog,
    int maxConsumers,
    WakeTimer wakeTimer,
    ActorRef<ConsumerGroup.Acked> ackSink,
    ActorRef<DueFeed.Command> feed) {

  boolean deadLetterTopic() {
    return topic.endsWith(BrokerStateMachine.DEAD_LETTER_SUFFIX);
  }
}
