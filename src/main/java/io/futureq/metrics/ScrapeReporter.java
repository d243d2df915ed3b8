package io.futureq.metrics;

import com.typesafe.config.Config;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BinaryOperator;
import kamon.metric.Distribution;
import kamon.metric.Instrument;
import kamon.metric.Metric;
import kamon.metric.MetricSnapshot;
import kamon.metric.PeriodSnapshot;
import kamon.module.MetricReporter;
import kamon.prometheus.PrometheusSettings;
import kamon.prometheus.ScrapeDataBuilder;
import kamon.tag.TagSet;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Kamon's Prometheus scrape data, cumulative from start-up, of the instruments that exist now. Kamon's own
 * reporter keeps every series it ever saw for five years, so a deleted group's or topic's series would stay in
 * every scrape; this one drops a series once its instrument is removed from Kamon (each tick's snapshot lists
 * every registered instrument, so one missing from it was removed). Its output is the same text as Kamon's
 * (the same {@link ScrapeDataBuilder}, buckets and summaries), but for histograms that recorded nothing yet, which
 * it writes as zeros ({@link UnrecordedHistograms}).
 */
final class ScrapeReporter implements MetricReporter {
  private final String configPath;
  private volatile PrometheusSettings.Generic settings;
  /** Totals by metric name and tags; confined to Kamon's reporting thread. */
  private Map<String, Map<TagSet, Long>> counters = new HashMap<>();
  private Map<String, Map<TagSet, Distribution>> distributions = new HashMap<>();
  private volatile String scrape = "";

  ScrapeReporter(String configPath, Config config) {
    this.configPath = configPath;
    reconfigure(config);
  }

  /** The latest scrape data: empty until Kamon's first tick. */
  String scrapeData() {
    return scrape;
  }

  @Override
  public void reportPeriodSnapshot(PeriodSnapshot snapshot) {
    Map<String, Map<TagSet, Long>> nextCounters = new HashMap<>();
    Map<String, Map<TagSet, Distribution>> nextDistributions = new HashMap<>();
    // The settings types are nested in Scala objects, which Java cannot name: var keeps what Kamon declares.
    var totals = accumulate(snapshot.counters(), counters, nextCounters, (a, b) -> (Long) a + (Long) b);
    var merged = new ArrayList<>(CollectionConverters.asJava(
        accumulate(snapshot.histograms(), distributions, nextDistributions, Distribution::merge)));
    merged.addAll(CollectionConverters.asJava(
        accumulate(snapshot.timers(), distributions, nextDistributions, Distribution::merge)));
    merged.addAll(CollectionConverters.asJava(
        accumulate(snapshot.rangeSamplers(), distributions, nextDistributions, Distribution::merge)));
    counters = nextCounters;
    distributions = nextDistributions;
    ScrapeDataBuilder builder = new ScrapeDataBuilder(settings, PrometheusSettings.environmentTags(settings));
    builder.appendCounters(totals);
    builder.appendGauges(snapshot.gauges());
    builder.appendHistograms(UnrecordedHistograms.marked(merged));
    scrape = UnrecordedHistograms.zeroed(builder.build());
  }

  /**
   * Adds each instrument's value this tick to its total so far; instruments absent from the snapshot (removed)
   * are not carried into {@code next}.
   */
  @SuppressWarnings("unchecked")
  private static <S extends Metric.Settings, V, T> Seq<MetricSnapshot<S, V>> accumulate(
      Seq<MetricSnapshot<S, V>> metrics, Map<String, Map<TagSet, T>> before, Map<String, Map<TagSet, T>> next,
      BinaryOperator<T> combine) {
    List<MetricSnapshot<S, V>> out = new ArrayList<>();
    for (MetricSnapshot<S, V> metric : CollectionConverters.asJava(metrics)) {
      Map<TagSet, T> previous = before.getOrDefault(metric.name(), Map.of());
      Map<TagSet, T> totals = next.computeIfAbsent(metric.name(), n -> new HashMap<>());
      List<Instrument.Snapshot<V>> instruments = new ArrayList<>();
      for (Instrument.Snapshot<V> instrument : CollectionConverters.asJava(metric.instruments())) {
        T value = (T) instrument.value();
        T old = previous.get(instrument.tags());
        T total = old == null ? value : combine.apply(old, value);
        totals.put(instrument.tags(), total);
        instruments.add(new Instrument.Snapshot<>(instrument.tags(), (V) total));
      }
      out.add(new MetricSnapshot<>(metric.name(), metric.description(), metric.settings(),
          CollectionConverters.asScala(instruments).toList()));
    }
    return CollectionConverters.asScala(out).toList();
  }

  @Override
  public void stop() {
    // Nothing to release: the endpoint is MetricsServer's.
  }

  @Override
  public void reconfigure(Config config) {
    settings = PrometheusSettings.readSettings(config.getConfig(configPath));
  }
}
