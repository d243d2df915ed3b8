package io.futureq.cli;

import io.futureq.client.FutureQClient;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * TLS options of every command that connects to a broker, each with an environment variable as its default. A file
 * that does not read, or a certificate without its key, is a bad argument (exit 2). The client key is
 * {@code --cert-key}: {@code --key} is the message key of publish, cancel, get and reschedule.
 */
final class TlsOptions {
  @Spec(Spec.Target.MIXEE)
  CommandSpec mixee;

  @Option(names = "--tls", defaultValue = "${env:FUTUREQ_TLS:-false}",
      description = "Connect with TLS, trusting the JVM's CAs unless --ca names others (default: $FUTUREQ_TLS, "
          + "else false). --ca, --cert and --cert-key imply it.")
  boolean tls;

  @Option(names = "--ca", paramLabel = "FILE", defaultValue = "${env:FUTUREQ_CA}",
      description = "PEM CA certificate(s) to trust for the broker's certificate (default: $FUTUREQ_CA).")
  Path ca;

  @Option(names = "--cert", paramLabel = "FILE", defaultValue = "${env:FUTUREQ_CERT}",
      description = "PEM client certificate, for a broker that requires one (default: $FUTUREQ_CERT); "
          + "needs --cert-key.")
  Path cert;

  @Option(names = "--cert-key", paramLabel = "FILE", defaultValue = "${env:FUTUREQ_KEY}",
      description = "PEM private key of --cert, unencrypted PKCS#8 (default: $FUTUREQ_KEY).")
  Path key;

  /** Sets TLS on {@code builder} and builds it. */
  FutureQClient build(FutureQClient.Builder builder) {
    if ((cert == null) != (key == null)) {
      throw bad(cert == null ? "--cert-key needs --cert (or $FUTUREQ_CERT)"
          : "--cert needs --cert-key (or $FUTUREQ_KEY)");
    }
    if (tls) {
      builder.tls();
    }
    if (ca != null) {
      builder.trustedCertificates(readable("--ca", ca));
    }
    if (cert != null) {
      builder.clientCertificate(readable("--cert", cert), readable("--cert-key", key));
    }
    try {
      return builder.build();
    } catch (IllegalArgumentException e) {
      throw bad(e.getMessage());
    }
  }

  private Path readable(String option, Path file) {
    if (!Files.isReadable(file)) {
      throw bad(option + " " + file + ": no such readable file");
    }
    return file;
  }

  private ParameterException bad(String message) {
    return new ParameterException(mixee.commandLine(), message);
  }
}
