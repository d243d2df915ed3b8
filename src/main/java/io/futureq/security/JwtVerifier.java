package io.futureq.security;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.nimbusds.jwt.proc.BadJWTException;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.X509EncodedKeySpec;
import java.text.ParseException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks a signed JWT with nimbus-jose-jwt: signature by the configured public key (RS256/384/512 for an RSA key,
 * ES256/384/512 for an EC key; "none" and HMAC are never accepted), {@code exp} and {@code nbf} within the clock
 * skew, {@code iss} and {@code aud} when configured, {@code sub} present. Grants come from the {@code futureq}
 * claim: {@code {"produce": ["orders.*"], "consume": [...], "admin": [...], "cluster": true}}.
 */
final class JwtVerifier {
  private static final Set<JWSAlgorithm> RSA = Set.of(JWSAlgorithm.RS256, JWSAlgorithm.RS384, JWSAlgorithm.RS512);
  private static final Set<JWSAlgorithm> EC = Set.of(JWSAlgorithm.ES256, JWSAlgorithm.ES384, JWSAlgorithm.ES512);

  private final JWSVerifier verifier;
  private final Set<JWSAlgorithm> algorithms;

  private JwtVerifier(JWSVerifier verifier, Set<JWSAlgorithm> algorithms) {
    this.verifier = verifier;
    this.algorithms = algorithms;
  }

  /** Reads a PEM public key ("BEGIN PUBLIC KEY", RSA or EC). */
  static JwtVerifier read(Path file) throws IOException {
    String pem = Files.readString(file, StandardCharsets.US_ASCII);
    int begin = pem.indexOf("-----BEGIN PUBLIC KEY-----");
    int end = pem.indexOf("-----END PUBLIC KEY-----");
    if (begin < 0 || end < begin) {
      throw new IllegalArgumentException(file + ": expected a PEM public key (-----BEGIN PUBLIC KEY-----)");
    }
    byte[] der = Base64.getMimeDecoder().decode(pem.substring(begin + 26, end));
    PublicKey key = null;
    for (String algorithm : List.of("RSA", "EC")) {
      try {
        key = KeyFactory.getInstance(algorithm).generatePublic(new X509EncodedKeySpec(der));
        break;
      } catch (GeneralSecurityException e) {
        // try the next key type
      }
    }
    try {
      if (key instanceof RSAPublicKey rsa) {
        return new JwtVerifier(new RSASSAVerifier(rsa), RSA);
      }
      if (key instanceof ECPublicKey ec) {
        return new JwtVerifier(new ECDSAVerifier(ec), EC);
      }
    } catch (JOSEException e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
    }
    throw new IllegalArgumentException(file + ": the public key is neither RSA nor EC");
  }

  /** The checked claims of {@code token}. @throws BadToken saying why (for the log, never the client) */
  JWTClaimsSet verify(String token, String issuer, String audience, Duration clockSkew) {
    try {
      SignedJWT jwt = SignedJWT.parse(token);
      if (!algorithms.contains(jwt.getHeader().getAlgorithm())) {
        throw new BadToken("JWT algorithm " + jwt.getHeader().getAlgorithm() + " does not fit the configured key");
      }
      if (!jwt.verify(verifier)) {
        throw new BadToken("JWT signature does not verify");
      }
      JWTClaimsSet claims = jwt.getJWTClaimsSet();
      JWTClaimsSet.Builder exact = new JWTClaimsSet.Builder();
      if (!issuer.isEmpty()) {
        exact.issuer(issuer);
      }
      DefaultJWTClaimsVerifier<?> check = new DefaultJWTClaimsVerifier<>(audience.isEmpty() ? null
          : Set.of(audience), exact.build(), Set.of("sub", "exp"), null);
      check.setMaxClockSkew((int) Math.min(Integer.MAX_VALUE, clockSkew.toSeconds()));
      check.verify(claims, null);
      return claims;
    } catch (ParseException | JOSEException | BadJWTException e) {
      throw new BadToken("JWT: " + e.getMessage());
    }
  }

  /** The grants of the {@code futureq} claim. @throws BadToken if the claim is malformed */
  static List<Grant> grants(JWTClaimsSet claims) {
    Object claim = claims.getClaim("futureq");
    List<Grant> grants = new ArrayList<>();
    if (claim == null) {
      return grants;
    }
    if (!(claim instanceof Map<?, ?> map)) {
      throw new BadToken("JWT claim futureq is not an object");
    }
    Set<Object> keys = new HashSet<>(map.keySet());
    for (Permission p : List.of(Permission.PRODUCE, Permission.CONSUME, Permission.ADMIN)) {
      keys.remove(p.configName());
      Object patterns = map.get(p.configName());
      if (patterns == null) {
        continue;
      }
      if (!(patterns instanceof List<?> list)) {
        throw new BadToken("JWT claim futureq." + p.configName() + " is not a list of topic patterns");
      }
      for (Object pattern : list) {
        try {
          grants.add(pattern instanceof Map<?, ?> scoped && p == Permission.CONSUME ? consumeAsGroups(scoped)
              : new Grant(p, TopicPattern.of(String.valueOf(pattern))));
        } catch (IllegalArgumentException e) {
          throw new BadToken("JWT claim futureq." + p.configName() + ": " + e.getMessage());
        }
      }
    }
    keys.remove("cluster");
    Object cluster = map.get("cluster");
    if (cluster != null && !(cluster instanceof Boolean)) {
      throw new BadToken("JWT claim futureq.cluster is not true or false");
    }
    if (Boolean.TRUE.equals(cluster)) {
      grants.add(new Grant(Permission.CLUSTER, TopicPattern.of("*")));
    }
    if (!keys.isEmpty()) {
      throw new BadToken("JWT claim futureq has unknown keys " + keys);
    }
    return grants;
  }

  /** A consume entry {@code {"topic": PATTERN, "group": PATTERN}}: consume on those topics as those groups only. */
  private static Grant consumeAsGroups(Map<?, ?> entry) {
    if (!(entry.get("topic") instanceof String topics) || !(entry.get("group") instanceof String groups)
        || entry.size() != 2) {
      throw new IllegalArgumentException("an object entry is {\"topic\": PATTERN, \"group\": PATTERN}, got " + entry);
    }
    return new Grant(Permission.CONSUME, TopicPattern.of(topics), AccessFile.groupPattern(groups));
  }

  /** Why a token was refused: logged at DEBUG, never told to the client. */
  static final class BadToken extends RuntimeException {
    BadToken(String message) {
      super(message, null, false, false);
    }
  }
}
