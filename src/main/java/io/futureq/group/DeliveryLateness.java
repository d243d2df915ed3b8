package io.futureq.group;

import java.time.Instant;
import org.HdrHistogram.IntCountsHistogram;

/**
 * How late a group's first deliveries left the broker, in microseconds (send time minus due
 * time), since the group started. Kept beside the Prometheus histogram because that one has
 * coarse buckets and is summed over the whole node.
 */
public record DeliveryLateness(long deliveries, long p50Us, long p90Us, long p99Us, long p999Us, long maxUs) {
  public static final DeliveryLateness NONE = new DeliveryLateness(0, 0, 0, 0, 0, 0);

  /** Microseconds since the epoch: the wall clock reads finer than milliseconds. */
  static long epochMicros(Instant at) {
    return at.getEpochSecond() * 1_000_000L + at.getNano() / 1000;
  }

  /** Records first deliveries in the group's own histogram and in the node's Prometheus one. */
  static final class Recorder {
    /** Two significant digits up to an hour: about 16 KiB per group. */
    private final IntCountsHistogram histogram = new IntCountsHistogram(3_600_000_000L, 2);
    private final kamon.metric.Histogram node;

    /** @param node the node's histogram, in microseconds ({@link io.futureq.metrics.TopicMetrics#lateness}) */
    Recorder(kamon.metric.Histogram node) {
      this.node = node;
    }

    void record(long nowUs, long dueMs) {
      long lateUs = Math.max(0, nowUs - dueMs * 1000);
      node.record(lateUs);
      histogram.recordValue(Math.min(lateUs, histogram.getHighestTrackableValue()));
    }

    DeliveryLateness summary() {
      if (histogram.getTotalCount() == 0) {
        return NONE;
      }
      return new DeliveryLateness(histogram.getTotalCount(), histogram.getValueAtPercentile(50),
          histogram.getValueAtPercentile(90), histogram.getValueAtPercentile(99),
          histogram.getValueAtPercentile(99.9), histogram.getMaxValue());
    }
  }
}
