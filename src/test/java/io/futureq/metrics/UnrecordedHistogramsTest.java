package io.futureq.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import kamon.metric.Distribution;
import org.junit.jupiter.api.Test;

/** A histogram nothing was recorded in reads as one observation of 0, percentiles included (none throws). */
class UnrecordedHistogramsTest {

  @Test
  void everyPercentileOfAnUnrecordedHistogramIsZero() {
    Distribution d = UnrecordedHistograms.ONE_ZERO;
    assertEquals(0, d.percentile(99.9).value());
    assertEquals(99.9, d.percentile(99.9).rank());
    assertEquals(1, d.percentiles().size());
    assertEquals(0, d.percentiles().head().value());
    assertEquals(1, d.count());
  }
}
