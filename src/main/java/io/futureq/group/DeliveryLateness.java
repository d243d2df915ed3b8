package io.futureq.group;

import org.HdrHistogram.IntCountsHistogram;

/**
 * How late a group's first deliveries left the broker, in microseconds (send time minus due
 * time), since the group started. Kept beside the Prometheus histogram because that one has
 * coarse buckets and is summed over the whole node.
 */
public record DeliveryLateness(long deliveries, long p50Us, long p90Us, long p99Us, long p999Us, long maxUs) {
  public static final DeliveryLateness NONE = new DeliveryLateness(0, 0, 0, 0, 0, 0);

  /** Two significant digits up to an hour: about 16 KiB per group. */
  static IntCountsHistogram newHistogram() {
    return new IntCountsHistogram(3_600_000_000L, 2);
  }

  static DeliveryLateness of(IntCountsHistogram h) {
    if (h.getTotalCount() == 0) {
      return NONE;
    }
    return new DeliveryLateness(h.getTotalCount(), h.getValueAtPercentile(50), h.getValueAtPercentile(90),
        h.getValueAtPercentile(99), h.getValueAtPercentile(99.9), h.getMaxValue());
  }
}
