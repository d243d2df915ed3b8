package io.futureq.tls;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509KeyManager;
import javax.net.ssl.X509TrustManager;

/** JDK key and trust managers, and SSL contexts, from what {@link PemFiles} read. Nothing touches a key store file. */
public final class TlsContexts {
  private static final char[] NO_PASSWORD = new char[0];

  private TlsContexts() {}

  /** Presents {@code identity} in handshakes. */
  public static X509KeyManager keyManager(PemFiles.KeyAndChain identity) {
    try {
      KeyStore store = emptyStore();
      store.setKeyEntry("identity", identity.key(), NO_PASSWORD, identity.chain().toArray(new X509Certificate[0]));
      KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      factory.init(store, NO_PASSWORD);
      return (X509KeyManager) factory.getKeyManagers()[0];
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot use the key and certificate: " + e.getMessage(), e);
    }
  }

  /** Trusts the peers whose certificate chains up to one of {@code authorities}. */
  public static X509TrustManager trustManager(List<X509Certificate> authorities) {
    try {
      KeyStore store = emptyStore();
      for (int i = 0; i < authorities.size(); i++) {
        store.setCertificateEntry("ca-" + i, authorities.get(i));
      }
      TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init(store);
      return (X509TrustManager) factory.getTrustManagers()[0];
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot trust the CA certificates: " + e.getMessage(), e);
    }
  }

  /**
   * A context presenting {@code identity} and trusting peers whose chain reaches one of {@code authorities} (null:
   * the JVM's default CAs). Its server engines verify client certificates only when told to ask for them.
   */
  public static SSLContext context(PemFiles.KeyAndChain identity, List<X509Certificate> authorities) {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(new X509KeyManager[] {keyManager(identity)},
          authorities == null ? null : new X509TrustManager[] {trustManager(authorities)}, null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot create a TLS context: " + e.getMessage(), e);
    }
  }

  private static KeyStore emptyStore() throws GeneralSecurityException {
    KeyStore store = KeyStore.getInstance("PKCS12");
    try {
      store.load(null, null);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return store;
  }
}
