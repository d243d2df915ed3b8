package io.futureq.api;

import io.futureq.config.ApiTlsSettings;
import io.futureq.tls.PemException;
import io.futureq.tls.PemFiles;
import io.futureq.tls.TlsContexts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Server-side TLS engines for the gRPC API whose certificate follows its files: each new connection's engine comes
 * from the current context, and at most once per reload interval the files' modification times and sizes are
 * compared with those last read. Changed files are read again; if they do not read (a half-written rotation), the
 * old context stays in use and the problem is logged once per change. Open connections keep the certificate they
 * were made with.
 */
final class ReloadingServerTls {
  private static final Logger LOG = LoggerFactory.getLogger(ReloadingServerTls.class);

  private final ApiTlsSettings settings;
  private final long intervalNanos;
  private volatile Loaded current;
  private volatile List<Object> failedStamp;
  private volatile long nextCheck;

  private ReloadingServerTls(ApiTlsSettings settings, Loaded first) {
    this.settings = settings;
    this.intervalNanos = settings.reloadInterval().toNanos();
    this.current = first;
    this.nextCheck = System.nanoTime() + intervalNanos;
  }

  /** Reads the files now; a bad one fails with a {@link PemException} naming it. */
  static ReloadingServerTls load(ApiTlsSettings settings) {
    return new ReloadingServerTls(settings, read(settings, stamp(settings)));
  }

  /** An engine for one new connection, with the newest certificate that read. */
  SSLEngine newEngine() {
    long now = System.nanoTime();
    if (now - nextCheck >= 0) {
      nextCheck = now + intervalNanos;
      reloadIfChanged();
    }
    SSLEngine engine = current.context().createSSLEngine();
    engine.setUseClientMode(false);
    engine.setNeedClientAuth(settings.mutual());
    return engine;
  }

  // Synchronized so that connections arriving together after a change read the files once.
  private synchronized void reloadIfChanged() {
    List<Object> stamp = stamp(settings);
    if (stamp.equals(current.stamp()) || stamp.equals(failedStamp)) {
      return;
    }
    try {
      current = read(settings, stamp);
      failedStamp = null;
      LOG.info("gRPC TLS certificate reloaded from {}: {}", settings.certFile(), current.subject());
    } catch (PemException | IllegalStateException e) {
      failedStamp = stamp;
      LOG.warn("gRPC TLS files changed but do not read, still serving the previous certificate: {}", e.getMessage());
    }
  }

  private static Loaded read(ApiTlsSettings s, List<Object> stamp) {
    PemFiles.KeyAndChain identity = PemFiles.keyAndChain(s.certFile(), s.keyFile());
    SSLContext context = TlsContexts.serverContext(identity,
        s.clientCaFile() == null ? null : PemFiles.certificates(s.clientCaFile()));
    return new Loaded(context, stamp, identity.chain().get(0).getSubjectX500Principal().getName());
  }

  /** Modification time, size and file key (inode) of each file: a rename over the file changes the key. */
  private static List<Object> stamp(ApiTlsSettings s) {
    List<Object> out = new ArrayList<>();
    for (Path file : new Path[] {s.certFile(), s.keyFile(), s.clientCaFile()}) {
      if (file == null) {
        continue;
      }
      try {
        BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
        out.add(List.of(a.lastModifiedTime(), a.size(), Objects.requireNonNullElse(a.fileKey(), "")));
      } catch (IOException e) {
        out.add("unreadable");
      }
    }
    return out;
  }

  private record Loaded(SSLContext context, List<Object> stamp, String subject) {}
}
