package io.futureq.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.typesafe.config.Config;
import io.futureq.config.MetricsSettings;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import kamon.Kamon;

/**
 * Serves GET /metrics: Kamon's Prometheus scrape data ({@link ScrapeReporter}), refreshed every Kamon tick. FutureQ
 * binds the port itself instead of using Kamon's reporter and its embedded server, which sends no Content-Type
 * (Prometheus 3 refuses such a scrape), fails to bind without telling anyone, and keeps removed series.
 */
public final class MetricsServer implements AutoCloseable {
  /** The Prometheus text exposition format, version 0.0.4. */
  public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private final HttpServer http;
  private volatile NodeMetrics sampler;

  private MetricsServer(HttpServer http) {
    this.http = http;
  }

  /**
   * Binds the endpoint, then starts Kamon with a Prometheus reporter behind it.
   *
   * @throws UncheckedIOException if the port cannot be bound
   */
  public static MetricsServer start(MetricsSettings endpoint, Config config) {
    HttpServer http;
    try {
      http = HttpServer.create(new InetSocketAddress(endpoint.host(), endpoint.port()), 0);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot bind futureq.metrics.port on " + endpoint.host() + ":"
          + endpoint.port() + ": " + e.getMessage(), e);
    }
    Kamon.init(config);
    GroupMetrics.limit(endpoint.maxGroupSeries());
    ScrapeReporter reporter = new ScrapeReporter("kamon.prometheus", config);
    Kamon.addReporter("futureq-prometheus", reporter);
    http.createContext("/metrics", exchange -> answer(exchange, reporter.scrapeData()));
    http.start();
    return new MetricsServer(http);
  }

  private static void answer(HttpExchange exchange, String scrape) throws IOException {
    try (exchange) {
      if (!exchange.getRequestMethod().equals("GET") && !exchange.getRequestMethod().equals("HEAD")) {
        exchange.sendResponseHeaders(405, -1);
        return;
      }
      byte[] body = scrape.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
      boolean head = exchange.getRequestMethod().equals("HEAD");
      exchange.sendResponseHeaders(200, head ? -1 : body.length);
      if (!head) {
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(body);
        }
      }
    }
  }

  /** The port bound (the configured one, or the one picked for port 0). */
  public int port() {
    return http.getAddress().getPort();
  }

  /** Samples the node's own gauges ({@link NodeMetrics}) from now on, until this endpoint closes. */
  public void sample(NodeMetrics nodeMetrics) {
    this.sampler = nodeMetrics;
  }

  @Override
  public void close() {
    if (sampler != null) {
      sampler.close();
    }
    http.stop(0);
    Kamon.stop();
  }
}
