package io.futureq.security;

import com.nimbusds.jwt.JWTClaimsSet;
import io.futureq.config.AuthSettings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns an {@code authorization} header into a {@link Principal}: a static token of the access file (looked up by
 * its hash), else a JWT signed by the configured key and not revoked. Thread-safe; files are re-read when they
 * change ({@link WatchedFile}).
 */
public final class Authenticator {
  private static final Logger LOG = LoggerFactory.getLogger(Authenticator.class);
  private static final String BEARER = "bearer ";

  private final AuthSettings settings;
  private final WatchedFile<AccessFile> access;
  private final WatchedFile<JwtVerifier> jwtKey;
  private final WatchedFile<Set<String>> revoked;

  Authenticator(AuthSettings settings, LongSupplier nanoClock) {
    this.settings = settings;
    this.access = settings.accessFile() == null ? null
        : new WatchedFile<>(settings.accessFile(), AccessFile::read, settings.reloadInterval(), nanoClock);
    this.jwtKey = settings.jwtPublicKeyFile() == null ? null
        : new WatchedFile<>(settings.jwtPublicKeyFile(), JwtVerifier::read, settings.reloadInterval(), nanoClock);
    this.revoked = settings.jwtRevokedFile() == null ? null
        : new WatchedFile<>(settings.jwtRevokedFile(), Authenticator::readRevoked, settings.reloadInterval(),
            nanoClock);
  }

  /**
   * Reads the configured files.
   *
   * @throws IllegalArgumentException naming the file (and line) that cannot be read
   */
  public static Authenticator start(AuthSettings settings) {
    return new Authenticator(settings, System::nanoTime);
  }

  /**
   * @param authorization the {@code authorization} metadata value; null when the call has none
   * @throws NotAuthenticated if it is not a valid token
   */
  public Principal authenticate(String authorization) {
    if (authorization == null || authorization.length() <= BEARER.length()
        || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      LOG.debug("refused a call without a bearer token");
      throw new NotAuthenticated();
    }
    String token = authorization.substring(BEARER.length()).trim();
    AccessFile file = accessFile();
    String principal = file.principalByTokenHash().get(TokenHash.of(token));
    if (principal != null) {
      return new Principal(principal, file.grantsOf(principal));
    }
    if (jwtKey == null) {
      LOG.debug("refused an unknown static token");
      throw new NotAuthenticated();
    }
    try {
      JWTClaimsSet claims = jwtKey.current().verify(token, settings.jwtIssuer(), settings.jwtAudience(),
          settings.jwtClockSkew());
      if (revoked != null && claims.getJWTID() != null && revoked.current().contains(claims.getJWTID())) {
        throw new JwtVerifier.BadToken("JWT " + claims.getJWTID() + " is revoked");
      }
      List<Grant> grants = new ArrayList<>(JwtVerifier.grants(claims));
      grants.addAll(file.grantsOf(claims.getSubject()));
      return new Principal(claims.getSubject(), grants);
    } catch (JwtVerifier.BadToken e) {
      LOG.debug("refused a token: {}", e.getMessage());
      throw new NotAuthenticated();
    }
  }

  /** {@code principal}'s own publish limit from the access file; null if it has none. */
  AccessFile.RateLimit limitOf(String principal) {
    return accessFile().limits().get(principal);
  }

  private AccessFile accessFile() {
    return access == null ? AccessFile.EMPTY : access.current();
  }

  private static Set<String> readRevoked(Path file) throws IOException {
    Set<String> ids = new HashSet<>();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      int hash = line.indexOf('#');
      String id = (hash >= 0 ? line.substring(0, hash) : line).trim();
      if (!id.isEmpty()) {
        ids.add(id);
      }
    }
    return Set.copyOf(ids);
  }
}
