package io.futureq.config;

import io.futureq.tls.PemException;
import io.futureq.tls.PemFiles;
import io.futureq.tls.ReloadingTls;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * TLS on the gRPC API, from {@code futureq.security.tls.*}. When enabled, the files are read once here so that a
 * missing or bad one stops start-up naming its setting.
 *
 * @param certFile PEM certificate chain, leaf first
 * @param keyFile PEM private key of the leaf certificate
 * @param clientCaFile PEM CA certificates client certificates must chain to; null: no client certificates asked
 * @param reloadInterval how often a new connection looks at the files' modification times for a new certificate
 */
public record ApiTlsSettings(boolean enabled, Path certFile, Path keyFile, Path clientCaFile,
    Duration reloadInterval) {

  static final String PREFIX = "futureq.security.tls.";

  /** Whether clients must present a certificate (mTLS). */
  public boolean mutual() {
    return enabled && clientCaFile != null;
  }

  /** The files and reload interval, as the listener that reloads them takes them. */
  public ReloadingTls.Files files() {
    return new ReloadingTls.Files("gRPC", certFile, keyFile, clientCaFile, mutual(), reloadInterval);
  }

  static ApiTlsSettings from(SettingsReader r) {
    boolean enabled = r.bool(PREFIX + "enabled");
    Duration reload = r.durationIn(PREFIX + "reload-interval", Duration.ofMillis(1), Duration.ofDays(1));
    String cert = r.string(PREFIX + "cert-file");
    String key = r.string(PREFIX + "key-file");
    String clientCa = r.string(PREFIX + "client-ca-file");
    ApiTlsSettings s = new ApiTlsSettings(enabled, path(cert), path(key), path(clientCa), reload);
    if (enabled) {
      checkFiles(r.problems(), PREFIX, s.certFile(), s.keyFile(), "client-ca-file", s.clientCaFile());
    }
    return s;
  }

  static Path path(String value) {
    return value == null || value.isBlank() ? null : Path.of(value);
  }

  /** Reads each file the way the server will, adding a problem that names the setting of the first bad one. */
  static void checkFiles(List<String> problems, String prefix, Path cert, Path key, String caName, Path ca) {
    int before = problems.size();
    if (cert == null) {
      problems.add(prefix + "cert-file: must name a PEM certificate file when " + prefix + "enabled = true");
    }
    if (key == null) {
      problems.add(prefix + "key-file: must name a PEM private key file when " + prefix + "enabled = true");
    }
    if (problems.size() > before) {
      return;
    }
    if (!readable(problems, prefix + "cert-file", () -> PemFiles.certificates(cert))
        || !readable(problems, prefix + "key-file", () -> PemFiles.privateKey(key))
        || !readable(problems, prefix + "key-file", () -> PemFiles.keyAndChain(cert, key))) {
      return;
    }
    if (ca != null) {
      readable(problems, prefix + caName, () -> PemFiles.certificates(ca));
    }
  }

  private static boolean readable(List<String> problems, String setting, Runnable read) {
    try {
      read.run();
      return true;
    } catch (PemException e) {
      problems.add(setting + ": " + e.getMessage());
      return false;
    }
  }
}
