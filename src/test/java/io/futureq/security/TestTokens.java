package io.futureq.security;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.Map;

/** Keys and JWTs made by the tests themselves (JDK KeyPairGenerator), never committed. */
final class TestTokens {
  static final String ISSUER = "https://issuer.test";
  static final String AUDIENCE = "futureq";

  private TestTokens() {}

  static KeyPair rsaKeyPair() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
      generator.initialize(2048);
      return generator.generateKeyPair();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static Path writePublicKey(KeyPair keys, Path file) {
    String pem = "-----BEGIN PUBLIC KEY-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(keys.getPublic().getEncoded())
        + "\n-----END PUBLIC KEY-----\n";
    try {
      return Files.writeString(file, pem);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A JWT for {@code subject}, valid for {@code ttl} from now (negative: already expired). */
  static String jwt(KeyPair keys, String subject, String jti, Duration ttl, String issuer, Map<String, Object> grants) {
    JWTClaimsSet claims = new JWTClaimsSet.Builder().subject(subject).issuer(issuer).audience(AUDIENCE).jwtID(jti)
        .issueTime(new Date()).expirationTime(Date.from(Instant.now().plus(ttl))).claim("futureq", grants).build();
    SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.RS256), claims);
    try {
      jwt.sign(new RSASSASigner(keys.getPrivate()));
    } catch (JOSEException e) {
      throw new IllegalStateException(e);
    }
    return jwt.serialize();
  }

  static String jwt(KeyPair keys, String subject, String jti, Map<String, Object> grants) {
    return jwt(keys, subject, jti, Duration.ofMinutes(10), ISSUER, grants);
  }
}
