package io.futureq.metrics;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.futureq.config.EndpointSettings;
import java.util.Map;
import kamon.Kamon;

/** Starts Kamon with its Prometheus reporter serving GET /metrics on the configured endpoint. */
public final class MetricsServer {
  private MetricsServer() {}

  public static void start(EndpointSettings endpoint, Config config) {
    Config prometheus = ConfigFactory.parseMap(Map.of(
        "kamon.modules.prometheus-reporter.enabled", true,
        "kamon.prometheus.start-embedded-http-server", true,
        "kamon.prometheus.embedded-server.hostname", endpoint.host(),
        "kamon.prometheus.embedded-server.port", endpoint.port()));
    Kamon.init(prometheus.withFallback(config));
  }

  public static void stop() {
    Kamon.stop();
  }
}
