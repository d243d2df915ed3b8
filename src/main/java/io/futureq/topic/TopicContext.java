package io.futureq.topic;

import io.futureq.config.GroupSettings;
import io.futureq.config.TopicSettings;
import io.futureq.group.WakeTimer;
import io.futureq.log.EventLog;
import io.futureq.storage.OrderedStore;
import java.time.Duration;
import java.util.concurrent.Executor;

/** What every topic entity shares: settings, storage, the event log and the storage executor. */
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
    LocalTopics localTopics) {}
