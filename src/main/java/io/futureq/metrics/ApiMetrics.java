package io.futureq.metrics;

import kamon.Kamon;
import kamon.metric.Histogram;
import kamon.metric.MeasurementUnit;
import kamon.metric.Timer;

/** Instruments of the gRPC edge. */
public final class ApiMetrics {
  /** Messages per publish request. */
  public static final String BATCH_SIZE = "futureq.publish.batch.size";
  /** Time from receiving a publish request to answering it. */
  public static final String PUBLISH_LATENCY = "futureq.publish.latency";

  public final Histogram batchSize = Kamon.histogram(BATCH_SIZE, "Messages per publish request.",
      MeasurementUnit.none()).withoutTags();
  public final Timer publishLatency = Kamon.timer(PUBLISH_LATENCY,
      "Time from receiving a publish request to answering it.").withoutTags();
}
