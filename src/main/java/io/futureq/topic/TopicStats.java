package io.futureq.topic;

import io.futureq.serialization.CborSerializable;
import io.futureq.group.ConsumerGroup;
import java.util.List;

/** A topic's numbers at one moment; see {@code Admin.GetTopicStats}. */
public record TopicStats(String topic, long pending, long dueNow, long nextDueMs, long oldestDueAgeMs,
    List<ConsumerGroup.Stats> groups) implements CborSerializable {
  public TopicStats {
    groups = List.copyOf(groups);
  }
}
