package io.futureq.config;

/**
 * The Prometheus endpoint ({@code futureq.metrics.*}): where it listens, and how many consumer groups this node
 * exports series of their own for ({@code max-group-series}; further groups fold into their topic's overflow series).
 */
public record MetricsSettings(boolean enabled, String host, int port, int maxGroupSeries) {

  static MetricsSettings from(SettingsReader r) {
    String p = "futureq.metrics.";
    return new MetricsSettings(r.bool(p + "enabled"), r.nonEmpty(p + "host"), r.port(p + "port"),
        r.intIn(p + "max-group-series", 0, 1_000_000));
  }
}
