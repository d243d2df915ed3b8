package io.futureq.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Who a caller is and what it may do: bearer tokens checked on every Producer, Consumer and Admin call, and the
 * publish rate each principal gets. See docs/security.md.
 *
 * @param enabled check a bearer token on every call; off: every caller is the principal {@code anonymous}, which
 *     may do everything
 * @param accessFile static tokens (hashed), grants and per-principal rate limits; null when not set
 * @param jwtPublicKeyFile PEM public key (RSA or EC) that signs accepted JWTs; null when JWTs are not accepted
 * @param jwtIssuer the {@code iss} a JWT must carry; empty: not checked
 * @param jwtAudience a value the JWT's {@code aud} must contain; empty: not checked
 * @param jwtRevokedFile the {@code jti} values of revoked JWTs, one a line; null when none
 * @param jwtClockSkew how far {@code exp} and {@code nbf} may be off
 * @param reloadInterval how often the files are checked for changes
 * @param messagesPerSecond publish limit of a principal without its own, in messages; 0 is unlimited
 * @param bytesPerSecond publish limit of a principal without its own, in request bytes; 0 is unlimited
 */
public record AuthSettings(boolean enabled, Path accessFile, Path jwtPublicKeyFile, String jwtIssuer,
    String jwtAudience, Path jwtRevokedFile, Duration jwtClockSkew, Duration reloadInterval, long messagesPerSecond,
    long bytesPerSecond) {

  private static final String AUTH = "futureq.security.auth.";
  private static final String RATE = "futureq.security.rate-limit.";

  static AuthSettings from(SettingsReader r) {
    return new AuthSettings(r.bool(AUTH + "enabled"), path(r, AUTH + "access-file"),
        path(r, AUTH + "jwt.public-key-file"), r.string(AUTH + "jwt.issuer"), r.string(AUTH + "jwt.audience"),
        path(r, AUTH + "jwt.revoked-file"), r.durationIn(AUTH + "jwt.clock-skew", Duration.ZERO, Duration.ofHours(1)),
        r.durationIn(AUTH + "reload-interval", Duration.ZERO, Duration.ofHours(1)),
        r.longIn(RATE + "messages-per-second", 0, 1_000_000_000L),
        r.bytesIn(RATE + "bytes-per-second", 0, 1L << 40));
  }

  void check(List<String> problems) {
    if (enabled && accessFile == null && jwtPublicKeyFile == null) {
      problems.add(AUTH + "enabled: set " + AUTH + "access-file, " + AUTH + "jwt.public-key-file or both: with "
          + "neither no token is accepted");
    }
    if (jwtPublicKeyFile == null && jwtRevokedFile != null) {
      problems.add(AUTH + "jwt.revoked-file: set only with " + AUTH + "jwt.public-key-file");
    }
  }

  private static Path path(SettingsReader r, String key) {
    String value = r.string(key);
    return value.isBlank() ? null : Path.of(value);
  }
}
