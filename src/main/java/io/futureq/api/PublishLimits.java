package io.futureq.api;

import io.futureq.api.grpc.Message;
import io.futureq.api.grpc.PublishRequest;
import io.futureq.config.LimitSettings;
import io.futureq.log.LogShards;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Refuses publishes that would pass the topic count or a topic's pending count. Checked against the
 * last committed state, so concurrent requests can overshoot a limit by what is in flight.
 */
final class PublishLimits {
  private final LimitSettings limits;
  private final LogShards state;

  PublishLimits(LimitSettings limits, LogShards state) {
    this.limits = limits;
    this.state = state;
  }

  /**
   * Messages per topic of {@code request}, in the order the topics first appear. A request nearly always names one
   * topic, in runs: the map is updated once per run of messages to one topic, not once per message.
   */
  static Map<String, Integer> countByTopic(PublishRequest request) {
    Map<String, Integer> perTopic = new LinkedHashMap<>();
    String topic = null;
    int run = 0;
    for (Message m : request.getMessagesList()) {
      if (!m.getTopic().equals(topic)) {
        if (run > 0) {
          perTopic.merge(topic, run, Integer::sum);
        }
        topic = m.getTopic();
        run = 0;
      }
      run++;
    }
    if (run > 0) {
      perTopic.merge(topic, run, Integer::sum);
    }
    return perTopic;
  }

  /** @param perTopic the request's {@link #countByTopic} */
  void check(Map<String, Integer> perTopic) {
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
