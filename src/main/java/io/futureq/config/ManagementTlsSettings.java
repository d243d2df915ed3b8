package io.futureq.config;

import io.futureq.tls.ReloadingTls;
import java.nio.file.Path;
import java.time.Duration;

/**
 * HTTPS on the management port, from {@code futureq.management.tls.*}: GET /alive and /ready, and the cluster
 * bootstrap routes through which the members probe each other (then over HTTPS too, checked against
 * {@code caFile}). The files are read once here so that a bad one stops start-up naming its setting.
 *
 * @param caFile PEM CA certificates the other members' management certificates chain to (and client
 *     certificates, when required); null: the JVM's default CAs, and no client certificates
 * @param requireClientCertificates whether every caller must present a certificate chaining to {@code caFile}:
 *     the members' probes present this one; Kubernetes' HTTP probes cannot
 */
public record ManagementTlsSettings(boolean enabled, Path certFile, Path keyFile, Path caFile,
    boolean requireClientCertificates, Duration reloadInterval) {

  static final String PREFIX = "futureq.management.tls.";

  /** The files and reload interval, as the listener and the bootstrap probes take them. */
  public ReloadingTls.Files files() {
    return new ReloadingTls.Files("management", certFile, keyFile, caFile, requireClientCertificates,
        reloadInterval);
  }

  static ManagementTlsSettings from(SettingsReader r) {
    ManagementTlsSettings s = new ManagementTlsSettings(r.bool(PREFIX + "enabled"),
        ApiTlsSettings.path(r.string(PREFIX + "cert-file")), ApiTlsSettings.path(r.string(PREFIX + "key-file")),
        ApiTlsSettings.path(r.string(PREFIX + "ca-file")), r.bool(PREFIX + "require-client-certificates"),
        r.durationIn(PREFIX + "reload-interval", Duration.ofMillis(1), Duration.ofDays(1)));
    if (!s.enabled()) {
      return s;
    }
    if (s.requireClientCertificates() && s.caFile() == null) {
      r.problems().add(PREFIX + "ca-file: must name the PEM certificate of the CA that signs the callers' "
          + "certificates when " + PREFIX + "require-client-certificates = true");
    }
    ApiTlsSettings.checkFiles(r.problems(), PREFIX, s.certFile(), s.keyFile(), "ca-file", s.caFile());
    return s;
  }
}
