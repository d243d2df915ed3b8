package io.futureq.config;

import java.time.Duration;

/** How topic entities schedule, read and delete. */
public record TopicSettings(
    Duration bucketSize,
    int readChunk,
    Duration deleteBatchInterval,
    int expiryChunk,
    Duration retryBackoff,
    Duration wakeInterval) {

  static TopicSettings from(SettingsReader r) {
    String p = "futureq.topic.";
    return new TopicSettings(
        r.durationIn(p + "bucket-size", Duration.ofMillis(1), Duration.ofMinutes(1)),
        r.intIn(p + "read-chunk", 1, 100_000),
        r.durationIn(p + "delete-batch-interval", Duration.ofMillis(1), Duration.ofMinutes(1)),
        r.intIn(p + "expiry-chunk", 1, 100_000),
        r.durationIn(p + "retry-backoff", Duration.ofMillis(1), Duration.ofMinutes(10)),
        r.durationIn(p + "wake-interval", Duration.ofSeconds(1), Duration.ofDays(1)));
  }

  public long bucketMs() {
    return bucketSize.toMillis();
  }
}
