package io.futureq.api;

import io.futureq.api.grpc.Message;
import io.futureq.api.grpc.PublishRequest;
import io.futureq.config.LimitSettings;
import io.futureq.log.BrokerStateMachine;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Refuses publishes that would pass the topic count or a topic's pending count. Checked against the
 * last committed state, so concurrent requests can overshoot a limit by what is in flight.
 */
final class PublishLimits {
  private final LimitSettings limits;
  private final BrokerStateMachine state;

  PublishLimits(LimitSettings limits, BrokerStateMachine state) {
    this.limits = limits;
    this.state = state;
  }

  void check(PublishRequest request) {
    Map<String, Integer> perTopic = new LinkedHashMap<>();
    for (Message m : request.getMessagesList()) {
      perTopic.merge(m.getTopic(), 1, Integer::sum);
    }
    int newTopics = 0;
    for (Map.Entry<String, Integer> e : perTopic.entrySet()) {
      if (!state.knowsTopic(e.getKey())) {
        newTopics++;
        continue;
      }
      long pending = state.pending(e.getKey());
      if (pending + e.getValue() > limits.maxPendingPerTopic()) {
        throw InvalidRequest.tooLarge("messages: topic " + e.getKey() + " has " + pending + " pending messages; "
            + e.getValue() + " more would pass the limit of " + limits.maxPendingPerTopic()
            + " (futureq.limits.max-pending-per-topic)");
      }
    }
    if (newTopics > 0 && state.topicCount() + newTopics > limits.maxTopics()) {
      throw InvalidRequest.tooLarge("messages: " + newTopics + " new topic(s) would pass the limit of "
          + limits.maxTopics() + " topics (futureq.limits.max-topics); the broker holds " + state.topicCount());
    }
  }
}
