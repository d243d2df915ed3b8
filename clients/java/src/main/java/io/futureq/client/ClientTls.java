package io.futureq.client;

import io.grpc.ChannelCredentials;
import io.grpc.InsecureChannelCredentials;
import io.grpc.TlsChannelCredentials;
import java.io.IOException;
import java.nio.file.Path;

/**
 * How a client's channels connect: plaintext, or TLS that trusts the JVM's CAs or the given CA file, optionally
 * presenting a client certificate (for a broker that requires mTLS). grpc-java checks that the broker's certificate
 * names the address dialled.
 */
record ClientTls(boolean enabled, Path caFile, Path certFile, Path keyFile) {
  static final ClientTls PLAINTEXT = new ClientTls(false, null, null, null);

  /**
   * @throws IllegalArgumentException naming the file if one cannot be read as PEM
   */
  ChannelCredentials credentials() {
    if (!enabled) {
      return InsecureChannelCredentials.create();
    }
    OkHttpPlatformQuiet.probeQuietly();
    TlsChannelCredentials.Builder tls = TlsChannelCredentials.newBuilder();
    if (caFile != null) {
      try {
        tls.trustManager(caFile.toFile());
      } catch (IOException | RuntimeException e) {
        throw new IllegalArgumentException("CA file " + caFile + " is not a readable PEM certificate: " + e, e);
      }
    }
    if (certFile != null) {
      try {
        tls.keyManager(certFile.toFile(), keyFile.toFile());
      } catch (IOException | RuntimeException e) {
        throw new IllegalArgumentException("client certificate " + certFile + " or key " + keyFile
            + " is not readable PEM (the key must be unencrypted PKCS#8, BEGIN PRIVATE KEY): " + e, e);
      }
    }
    return tls.build();
  }
}
