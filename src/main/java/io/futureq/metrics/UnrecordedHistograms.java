package io.futureq.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import kamon.metric.Distribution;
import kamon.metric.DynamicRange;
import kamon.metric.Instrument;
import kamon.metric.Metric;
import kamon.metric.MetricSnapshot;
import scala.collection.Iterator;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Histograms that recorded nothing yet, written as zeros. Kamon's scrape writes no sample at all for them (only
 * HELP and TYPE), so Prometheus would have no series until the first delivery or commit: rates and quantiles show
 * no data instead of zero, and the first observations are lost to rate(). The scrape builder is handed such a
 * histogram as one observation of 0 under a marker label, and {@link #zeroed} then drops the marker and sets each of
 * its samples to 0, so that its bucket bounds are written exactly as they will be once it records.
 */
final class UnrecordedHistograms {
  private static final String MARK_KEY = "futureq_unrecorded";
  private static final String MARK = MARK_KEY + "=\"1\"";
  /** One observation of 0: the builder writes every bucket of it. */
  static final Distribution ONE_ZERO = new OneZero();

  private UnrecordedHistograms() {}

  /** The metrics with each instrument that recorded nothing replaced by a marked single zero. */
  static <S extends Metric.Settings> Seq<MetricSnapshot<S, Distribution>> marked(
      List<MetricSnapshot<S, Distribution>> metrics) {
    List<MetricSnapshot<S, Distribution>> out = new ArrayList<>(metrics.size());
    for (MetricSnapshot<S, Distribution> metric : metrics) {
      List<Instrument.Snapshot<Distribution>> instruments = new ArrayList<>();
      for (Instrument.Snapshot<Distribution> i : CollectionConverters.asJava(metric.instruments())) {
        instruments.add(i.value().count() > 0 ? i
            : new Instrument.Snapshot<>(i.tags().withTag(MARK_KEY, "1"), ONE_ZERO));
      }
      out.add(new MetricSnapshot<>(metric.name(), metric.description(), metric.settings(),
          CollectionConverters.asScala(instruments).toList()));
    }
    return CollectionConverters.asScala(out).toList();
  }

  /** The scrape with every marked sample unmarked and set to 0. */
  static String zeroed(String scrape) {
    if (!scrape.contains(MARK)) {
      return scrape;
    }
    return scrape.lines().map(line -> line.contains(MARK) ? unmark(line) : line)
        .collect(Collectors.joining("\n", "", "\n"));
  }

  private static String unmark(String line) {
    String series = line.substring(0, line.lastIndexOf(' '));
    return series.replace("{" + MARK + "}", "").replace("{" + MARK + ",", "{").replace("," + MARK, "") + " 0.0";
  }

  /** A distribution of one observation of 0: every percentile is 0 (histograms are written from its buckets). */
  private static final class OneZero implements Distribution {
    private static final Bucket ZERO = new Bucket() {
      @Override
      public long value() {
        return 0;
      }

      @Override
      public long frequency() {
        return 1;
      }
    };

    @Override
    public DynamicRange dynamicRange() {
      return DynamicRange.Default();
    }

    @Override
    public long min() {
      return 0;
    }

    @Override
    public long max() {
      return 0;
    }

    @Override
    public long sum() {
      return 0;
    }

    @Override
    public long count() {
      return 1;
    }

    @Override
    public Percentile percentile(double rank) {
      return zeroAt(rank);
    }

    /** One percentile per bucket, as Kamon lists them: the one bucket, at rank 100. */
    @Override
    public Seq<Percentile> percentiles() {
      return CollectionConverters.asScala(List.of(zeroAt(100))).toList();
    }

    private static Percentile zeroAt(double rank) {
      return new Percentile() {
        @Override
        public double rank() {
          return rank;
        }

        @Override
        public long value() {
          return 0;
        }

        @Override
        public long countAtRank() {
          return 1;
        }
      };
    }

    @Override
    public Iterator<Percentile> percentilesIterator() {
      return percentiles().iterator();
    }

    @Override
    public Seq<Bucket> buckets() {
      return CollectionConverters.asScala(List.of(ZERO)).toList();
    }

    @Override
    public Iterator<Bucket> bucketsIterator() {
      return buckets().iterator();
    }
  }
}
