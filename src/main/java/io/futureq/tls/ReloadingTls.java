package io.futureq.tls;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TLS engines whose certificate follows its files: each new connection's engine comes from the current contexts,
 * and at most once per reload interval the files' modification times and sizes are compared with those last read.
 * Changed files are read again; if they do not read (a half-written rotation), the old contexts stay in use and
 * the problem is logged once per change. Open connections keep the certificate they were made with.
 */
public final class ReloadingTls {
  private static final Logger LOG = LoggerFactory.getLogger(ReloadingTls.class);

  /**
   * What one listener presents and trusts.
   *
   * @param purpose what the files secure, for log lines ("gRPC", "management")
   * @param caFile PEM CA certificates that client certificates must chain to and that {@link #clientEngine} trusts;
   *     null: no client certificates can be checked, and clients trust the JVM's default CAs
   * @param requireClientCertificates whether a server engine makes clients present a certificate (mTLS)
   */
  public record Files(String purpose, Path certFile, Path keyFile, Path caFile, boolean requireClientCertificates,
      Duration reloadInterval) {}

  private final Files files;
  private final long intervalNanos;
  private volatile Loaded current;
  private volatile List<Object> failedStamp;
  private volatile long nextCheck;

  private ReloadingTls(Files files, Loaded first) {
    this.files = files;
    this.intervalNanos = files.reloadInterval().toNanos();
    this.current = first;
    this.nextCheck = System.nanoTime() + intervalNanos;
  }

  /** Reads the files now; a bad one fails with a {@link PemException} naming it. */
  public static ReloadingTls load(Files files) {
    return new ReloadingTls(files, read(files, stamp(files)));
  }

  /** A server engine for one new connection, with the newest certificate that read. */
  public SSLEngine serverEngine() {
    SSLEngine engine = fresh().context().createSSLEngine();
    engine.setUseClientMode(false);
    engine.setNeedClientAuth(files.requireClientCertificates());
    return engine;
  }

  /**
   * A client engine for one new connection to {@code host:port}: it presents the newest certificate that read and
   * checks that the server's certificate chains to the CA file and names {@code host}.
   */
  public SSLEngine clientEngine(String host, int port) {
    SSLEngine engine = fresh().context().createSSLEngine(host, port);
    engine.setUseClientMode(true);
    SSLParameters parameters = engine.getSSLParameters();
    parameters.setEndpointIdentificationAlgorithm("HTTPS");
    engine.setSSLParameters(parameters);
    return engine;
  }

  private Loaded fresh() {
    long now = System.nanoTime();
    if (now - nextCheck >= 0) {
      nextCheck = now + intervalNanos;
      reloadIfChanged();
    }
    return current;
  }

  // Synchronized so that connections arriving together after a change read the files once.
  private synchronized void reloadIfChanged() {
    List<Object> stamp = stamp(files);
    if (stamp.equals(current.stamp()) || stamp.equals(failedStamp)) {
      return;
    }
    try {
      current = read(files, stamp);
      failedStamp = null;
      LOG.info("{} TLS certificate reloaded from {}: {}", files.purpose(), files.certFile(), current.subject());
    } catch (PemException | IllegalStateException e) {
      failedStamp = stamp;
      LOG.warn("{} TLS files changed but do not read, still serving the previous certificate: {}", files.purpose(),
          e.getMessage());
    }
  }

  private static Loaded read(Files f, List<Object> stamp) {
    PemFiles.KeyAndChain identity = PemFiles.keyAndChain(f.certFile(), f.keyFile());
    var authorities = f.caFile() == null ? null : PemFiles.certificates(f.caFile());
    return new Loaded(TlsContexts.context(identity, authorities), stamp,
        identity.chain().get(0).getSubjectX500Principal().getName());
  }

  /** Modification time, size and file key (inode) of each file: a rename over the file changes the key. */
  private static List<Object> stamp(Files f) {
    List<Object> out = new ArrayList<>();
    for (Path file : new Path[] {f.certFile(), f.keyFile(), f.caFile()}) {
      if (file == null) {
        continue;
      }
      try {
        // fqn: java.nio.file.Files, beside this class's own Files (the certificate and key paths)
        BasicFileAttributes a = java.nio.file.Files.readAttributes(file, BasicFileAttributes.class);
        out.add(List.of(a.lastModifiedTime(), a.size(), Objects.requireNonNullElse(a.fileKey(), "")));
      } catch (IOException e) {
        out.add("unreadable");
      }
    }
    return out;
  }

  private record Loaded(SSLContext context, List<Object> stamp, String subject) {}
}
