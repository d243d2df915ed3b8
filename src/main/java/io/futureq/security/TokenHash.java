package io.futureq.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;

/**
 * How static tokens are stored: {@code sha256:} and the SHA-256 of the token's UTF-8 bytes in hex. No salt or slow
 * hash: tokens are 256 random bits ({@link #newToken()}), not passwords, so a fast hash cannot be brute-forced and
 * lets each call be checked by one lookup. The file then gives away no token.
 */
public final class TokenHash {
  static final String PREFIX = "sha256:";

  private TokenHash() {}

  /** The access file's form of {@code token}: {@code sha256:} and 64 hex digits. */
  public static String of(String token) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
      return PREFIX + HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java 17 runtime has SHA-256", e);
    }
  }

  /** A fresh token: 32 random bytes, base64url without padding (43 characters). */
  public static String newToken() {
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }
}
