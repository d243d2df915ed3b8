package io.futureq.tls;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * Reads PEM files as operators get them from a CA or cert-manager: certificates (a chain, leaf first) and an
 * unencrypted private key in PKCS#8 ({@code BEGIN PRIVATE KEY}), PKCS#1 ({@code BEGIN RSA PRIVATE KEY}) or SEC1
 * ({@code BEGIN EC PRIVATE KEY}) form. Every failure is a {@link PemException} naming the file.
 */
public final class PemFiles {
  private PemFiles() {}

  /** The certificates in {@code file}, in file order; at least one. */
  public static List<X509Certificate> certificates(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      List<X509Certificate> out = new ArrayList<>();
      for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        out.add((X509Certificate) c);
      }
      if (out.isEmpty()) {
        throw new PemException(file, "holds no PEM certificate (BEGIN CERTIFICATE)");
      }
      return List.copyOf(out);
    } catch (NoSuchFileException e) {
      throw new PemException(file, "no such file");
    } catch (IOException e) {
      throw new PemException(file, "cannot be read: " + e.getMessage(), e);
    } catch (CertificateException e) {
      throw new PemException(file, "is not a PEM certificate (chain): " + e.getMessage(), e);
    }
  }

  /** The first private key in {@code file}. */
  public static PrivateKey privateKey(Path file) {
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.US_ASCII);
        PEMParser pem = new PEMParser(reader)) {
      JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
      for (Object o = pem.readObject(); o != null; o = pem.readObject()) {
        if (o instanceof PrivateKeyInfo info) {
          return converter.getPrivateKey(info);
        }
        if (o instanceof PEMKeyPair pair) {
          return converter.getPrivateKey(pair.getPrivateKeyInfo());
        }
        if (o instanceof PEMEncryptedKeyPair || o instanceof PKCS8EncryptedPrivateKeyInfo) {
          throw new PemException(file, "the private key is encrypted; give it unencrypted (e.g. "
              + "openssl pkcs8 -topk8 -nocrypt) and protect the file by its permissions");
        }
      }
      throw new PemException(file, "holds no PEM private key (BEGIN PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY)");
    } catch (NoSuchFileException e) {
      throw new PemException(file, "no such file");
    } catch (IOException | RuntimeException e) {
      if (e instanceof PemException p) {
        throw p;
      }
      throw new PemException(file, "is not a readable PEM private key: " + e.getMessage(), e);
    }
  }

  /**
   * The key in {@code keyFile} with the chain in {@code certFile}, checked to belong together (the key signs
   * what the leaf certificate's public key verifies).
   */
  public static KeyAndChain keyAndChain(Path certFile, Path keyFile) {
    List<X509Certificate> chain = certificates(certFile);
    PrivateKey key = privateKey(keyFile);
    if (!matches(key, chain.get(0).getPublicKey())) {
      throw new PemException(keyFile, "does not belong to the first certificate of " + certFile);
    }
    return new KeyAndChain(key, chain);
  }

  private static boolean matches(PrivateKey key, PublicKey publicKey) {
    String algorithm = switch (key.getAlgorithm()) {
      case "RSA" -> "SHA256withRSA";
      case "EC", "ECDSA" -> "SHA256withECDSA";
      default -> key.getAlgorithm(); // Ed25519, Ed448 name their signature
    };
    try {
      byte[] probe = new byte[32];
      new SecureRandom().nextBytes(probe);
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(probe);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(publicKey);
      verifier.update(probe);
      return verifier.verify(signature);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }

  /** A private key and its certificate chain, leaf first. */
  public record KeyAndChain(PrivateKey key, List<X509Certificate> chain) {
    public KeyAndChain {
      chain = List.copyOf(chain);
    }
  }
}
