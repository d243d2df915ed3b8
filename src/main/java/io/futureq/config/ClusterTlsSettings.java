package io.futureq.config;

import io.futureq.tls.PemFiles;
import java.nio.file.Path;

/**
 * TLS between the members, from {@code futureq.cluster.tls.*}: one identity for Pekko remoting (Artery
 * {@code tls-tcp}) and for Raft (Ratis gRPC). Both sides present a certificate and require the peer's to chain to
 * {@code caFile}. The files are read once here so that a bad one stops start-up naming its setting.
 *
 * @param certFile PEM certificate chain of this member, leaf first
 * @param keyFile PEM RSA private key of the leaf (PKCS#8 or PKCS#1: what Pekko's rotating-keys engine reads)
 * @param caFile PEM certificate(s) of the CA that signs every member's certificate
 */
public record ClusterTlsSettings(boolean enabled, Path certFile, Path keyFile, Path caFile) {
  static final String PREFIX = "futureq.cluster.tls.";

  static ClusterTlsSettings from(SettingsReader r) {
    ClusterTlsSettings s = new ClusterTlsSettings(r.bool(PREFIX + "enabled"),
        ApiTlsSettings.path(r.string(PREFIX + "cert-file")), ApiTlsSettings.path(r.string(PREFIX + "key-file")),
        ApiTlsSettings.path(r.string(PREFIX + "ca-file")));
    if (!s.enabled()) {
      return s;
    }
    int before = r.problems().size();
    if (s.caFile() == null) {
      r.problems().add(PREFIX + "ca-file: must name the PEM certificate of the CA that signs the members' "
          + "certificates when " + PREFIX + "enabled = true");
    }
    ApiTlsSettings.checkFiles(r.problems(), PREFIX, s.certFile(), s.keyFile(), "ca-file", s.caFile());
    if (r.problems().size() == before && !PemFiles.privateKey(s.keyFile()).getAlgorithm().equals("RSA")) {
      r.problems().add(PREFIX + "key-file: " + s.keyFile() + ": must be an RSA key (Pekko remoting reads no other)");
    }
    return s;
  }
}
