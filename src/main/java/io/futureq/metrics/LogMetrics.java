package io.futureq.metrics;

import kamon.Kamon;
import kamon.metric.Timer;

/** Instruments of the event log. */
public final class LogMetrics {
  /** Time to prepare, write and fsync one group commit. */
  public static final String COMMIT_LATENCY = "futureq.storage.commit.latency";

  public final Timer commitLatency = Kamon.timer(COMMIT_LATENCY,
      "Time to prepare, write and fsync one group commit of the event log.").withoutTags();

  public void recordCommit(long nanos) {
    commitLatency.record(nanos);
  }
}
