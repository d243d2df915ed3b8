package io.futureq.tls;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** Certificates and keys made on the fly for tests (never committed): a CA, and leaves it signs for loopback. */
public final class TestCertificates {
  private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

  private TestCertificates() {}

  /** A key pair and its certificate. */
  public record Issued(KeyPair keys, X509Certificate certificate) {
    /** Writes the certificate to {@code certFile}, and the key to {@code keyFile} as PKCS#8. */
    public void write(Path certFile, Path keyFile) {
      writePem(certFile, certificate);
      writePkcs8(keyFile, keys);
    }
  }

  public static KeyPair rsa() {
    return generate("RSA", 2048);
  }

  public static KeyPair ec() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(new ECGenParameterSpec("secp256r1"));
      return g.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A self-signed CA. */
  public static Issued authority(String name) {
    KeyPair keys = ec();
    return new Issued(keys, sign(name, keys, name, keys, true, List.of()));
  }

  /** A leaf for {@code 127.0.0.1} and {@code localhost}, signed by {@code ca}. */
  public static Issued leaf(Issued ca, String name, KeyPair keys) {
    return new Issued(keys, sign(name, keys, ca.certificate().getSubjectX500Principal().getName(), ca.keys(), false,
        List.of(new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
            new GeneralName(GeneralName.dNSName, "localhost"))));
  }

  public static void writePem(Path file, Object... objects) {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter pem = new JcaPEMWriter(out)) {
      for (Object o : objects) {
        pem.writeObject(o);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    write(file, out.toString());
  }

  public static void writePkcs8(Path file, KeyPair keys) {
    try {
      writePem(file, new JcaPKCS8Generator(keys.getPrivate(), null).generate());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The traditional OpenSSL form: PKCS#1 for RSA ({@code RSA PRIVATE KEY}), SEC1 for EC ({@code EC PRIVATE KEY}). */
  public static void writeTraditional(Path file, KeyPair keys) {
    try {
      // The JDK's EC key leaves the curve out of its inner SEC1 structure; BouncyCastle's keeps it there, as openssl.
      var asBouncyCastle = KeyFactory.getInstance(keys.getPrivate().getAlgorithm(), new BouncyCastleProvider())
          .generatePrivate(new PKCS8EncodedKeySpec(keys.getPrivate().getEncoded()));
      writePem(file, new KeyPair(keys.getPublic(), asBouncyCastle));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void write(Path file, String text) {
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      // Written beside and moved over, as a rotation by a tool (cert-manager, a script) would.
      Path temp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(temp, text);
      Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static KeyPair generate(String algorithm, int bits) {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance(algorithm);
      g.initialize(bits);
      return g.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static X500Name dn(String name) {
    return new X500Name(name.startsWith("CN=") ? name : "CN=" + name);
  }

  private static X509Certificate sign(String subject, KeyPair subjectKeys, String issuer, KeyPair issuerKeys,
      boolean ca, List<GeneralName> names) {
    try {
      Instant now = Instant.now();
      var builder = new JcaX509v3CertificateBuilder(dn(issuer), BigInteger.valueOf(SERIAL.incrementAndGet()),
          Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(1))), dn(subject),
          subjectKeys.getPublic());
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
      if (ca) {
        builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      } else {
        builder.addExtension(Extension.keyUsage, true,
            new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
        builder.addExtension(Extension.subjectAlternativeName, false,
            new GeneralNames(new ArrayList<>(names).toArray(new GeneralName[0])));
      }
      String algorithm = issuerKeys.getPrivate().getAlgorithm().equals("RSA") ? "SHA256withRSA" : "SHA256withECDSA";
      return new JcaX509CertificateConverter().getCertificate(
          builder.build(new JcaContentSignerBuilder(algorithm).build(issuerKeys.getPrivate())));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
