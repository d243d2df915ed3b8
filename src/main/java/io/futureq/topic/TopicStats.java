package io.futureq.topic;

import io.futureq.group.ConsumerGroup;
import io.futureq.serialization.CborSerializable;
import java.util.List;

/** A topic's numbers at one moment; see {@code Admin.GetTopicStats}. {@code backlogs}: one per durable group. */
public record TopicStats(String topic, long pending, long dueNow, long nextDueMs, long oldestDueAgeMs,
    List<ConsumerGroup.Stats> groups, List<GroupBacklog> backlogs) implements CborSerializable {
  public TopicStats {
    groups = List.copyOf(groups);
    backlogs = List.copyOf(backlogs);
  }
}
