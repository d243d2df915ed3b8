package io.futureq.topic;

import io.futureq.config.GroupSettings;
import io.futureq.config.TopicSettings;
import io.futureq.group.WakeTimer;
import io.futureq.log.EventLog;
import io.futureq.storage.OrderedStore;
import java.time.Duration;
import java.util.concurrent.Executor;

/**
 * What the topic entities of one log shard share: settings, the shard's store and event log, and the node's storage
 * executor, wake timer and local topics.
 */
public record TopicContext(
    TopicSettings settings,
    GroupSettings groupSettings,
    OrderedStore store,
    long bucketMs,
    EventLog eventLog,
    Executor storageExecutor,
    Duration askTimeout,
    int maxConsumersPerGroup,
    WakeTimer wakeTimer,
    LocalTopics localTopics) {

  /** The same context writing through {@code log}. */
  TopicContext withEventLog(EventLog log) {
    return new TopicContext(settings, groupSettings, store, bucketMs, log, storageExecutor, askTimeout,
        maxConsumersPerGroup, wakeTimer, localTopics);
  }
}
