package io.futureq.api;

import io.futureq.topic.TopicEntity;
import io.futureq.topic.TopicRouter;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers to writes that take messages away from a topic's groups (a cancel, a reschedule, a purge, a
 * group or topic delete) wait until the topic's host has applied the write and its groups have taken
 * it in ({@link TopicEntity.Settle}): the host's replica may lag the write by any amount, and its groups
 * would otherwise deliver what the answer says is gone. The write is committed either way, so if the
 * host does not confirm within half the request timeout (it is down, or the topic is moving: its next
 * host applies the write before its groups start) the committed result is answered anyway.
 */
final class HostSettle {
  private static final Logger LOG = LoggerFactory.getLogger(HostSettle.class);

  private final TopicRouter topics;
  private final Duration within;

  HostSettle(TopicRouter topics, Duration requestTimeout) {
    this.topics = topics;
    this.within = requestTimeout.dividedBy(2);
  }

  /**
   * {@code result} once the host has applied log entry {@code index} ({@link TopicEntity.Settle#EVERYTHING_BEFORE}:
   * everything committed before now).
   */
  <T> CompletionStage<T> then(String topic, long index, T result) {
    return topics.settle(topic, index, within).handle((done, failure) -> {
      if (failure != null) {
        LOG.warn("a write to topic {} is committed, but the topic's host did not confirm it within {}: {}", topic,
            within, failure.getMessage());
      }
      return result;
    });
  }
}
