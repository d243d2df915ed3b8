package io.futureq.app;

import io.futureq.config.ApiTlsSettings;
import io.futureq.config.BrokerSettings;
import io.futureq.config.ManagementTlsSettings;
import io.futureq.config.SecuritySettings;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The start-up lines that say what a node exposes and how each port is protected, with a WARN for each port that
 * other machines reach unprotected because an {@code allow-insecure} switch let it.
 */
final class Exposure {
  /** Node's logger: operators grep and alert on these lines under the name they always had. */
  private static final Logger LOG = LoggerFactory.getLogger(Node.class);

  private Exposure() {}

  static void log(BrokerSettings settings, int grpcPort, boolean clustered) {
    ApiTlsSettings tls = settings.security().tls();
    boolean wide = !SecuritySettings.isLoopback(settings.api().host());
    LOG.info("gRPC API exposed on {}:{} ({}): TLS {}, client certificates (mTLS) {}, bearer tokens {}; cluster "
        + "traffic TLS {}", settings.api().host(), grpcPort, wide ? "reachable from other machines" : "loopback only",
        tls.enabled() ? "on" : "off", tls.mutual() ? "required" : "off",
        settings.security().auth().enabled() ? "required" : "off", settings.cluster().tls().enabled() ? "on" : "off");
    ManagementTlsSettings managementTls = settings.security().managementTls();
    LOG.info("Management (/alive, /ready{}) on {}:{} over {}", clustered ? ", cluster bootstrap" : "",
        settings.management().host(), settings.management().port(), !managementTls.enabled() ? "plain HTTP"
            : managementTls.requireClientCertificates() ? "HTTPS, client certificates required" : "HTTPS");
    if (settings.security().auth().enabled()) {
      LOG.info("gRPC calls need a bearer token ({}{}); health and reflection stay open", settings.security().auth()
          .accessFile() == null ? "" : "static tokens of " + settings.security().auth().accessFile(),
          settings.security().auth().jwtPublicKeyFile() == null ? ""
              : (settings.security().auth().accessFile() == null ? "" : ", ") + "JWTs signed by "
              + settings.security().auth().jwtPublicKeyFile());
    }
    if (wide && (!tls.enabled() || !settings.security().auth().enabled())) {
      LOG.warn("gRPC on {}:{} is reachable from other machines WITHOUT {} (futureq.security.allow-insecure = true): {}",
          settings.api().host(), grpcPort, !tls.enabled() && !settings.security().auth().enabled()
              ? "TLS OR AUTHENTICATION" : !tls.enabled() ? "TLS" : "AUTHENTICATION",
          !settings.security().auth().enabled() ? "anyone who reaches it can publish, consume, cancel and administer"
              : "anyone on the path can read its traffic, bearer tokens included");
    }
    List<String> cluster = settings.cluster().exposed(settings.raft());
    if (!cluster.isEmpty() && !settings.cluster().tls().enabled()) {
      LOG.warn("{} reachable from other machines WITHOUT cluster TLS (futureq.cluster.allow-insecure = true): anyone "
          + "who reaches them can write to the Raft log (publish, cancel, delete, change membership) and join the "
          + "cluster", String.join(" and ", cluster));
    }
    if (settings.metrics().enabled() && !SecuritySettings.isLoopback(settings.metrics().host())) {
      LOG.info("Metrics (/metrics, plain HTTP, topic and group names in labels) on {}:{}, reachable from other "
          + "machines", settings.metrics().host(), settings.metrics().port());
    }
  }
}
