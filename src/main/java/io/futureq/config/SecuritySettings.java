package io.futureq.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * Who may reach the broker. Without TLS, anyone on the path reads and forges its traffic; without
 * authentication, anyone who reaches the gRPC port can publish, consume, cancel and administer. By
 * default it listens on loopback only, and a wider bind needs both TLS and authentication, or
 * {@code futureq.security.allow-insecure = true}, said out loud.
 *
 * @param allowInsecure serve the gRPC API beyond loopback without TLS or without authentication
 * @param tls TLS (and client certificates) on the gRPC API
 * @param auth bearer tokens, permissions and publish rate limits
 * @param managementTls HTTPS on the management port
 */
public record SecuritySettings(boolean allowInsecure, ApiTlsSettings tls, AuthSettings auth,
    ManagementTlsSettings managementTls) {

  static SecuritySettings from(SettingsReader r) {
    return new SecuritySettings(r.bool("futureq.security.allow-insecure"), ApiTlsSettings.from(r),
        AuthSettings.from(r), ManagementTlsSettings.from(r));
  }

  /** Refuses a gRPC bind other machines can reach without TLS and authentication, unless allowed. */
  void check(ApiSettings api, List<String> problems) {
    auth.check(problems);
    if (!allowInsecure && !isLoopback(api.host()) && (!tls.enabled() || !auth.enabled())) {
      List<String> missing = new ArrayList<>();
      if (!tls.enabled()) {
        missing.add("futureq.security.tls.enabled = false");
      }
      if (!auth.enabled()) {
        missing.add("futureq.security.auth.enabled = false");
      }
      problems.add("futureq.api.host: \"" + api.host() + "\" can be reached from other machines, and "
          + String.join(" and ", missing) + ": bind a loopback address (127.0.0.1), turn TLS and authentication "
          + "on, or set futureq.security.allow-insecure = true to let anyone who reaches it read its traffic, "
          + "publish, consume and administer");
    }
  }

  /**
   * Refuses a console other machines can reach without TLS and authentication, unless allowed: it reads and
   * administers what the API does, with the API's TLS and tokens.
   */
  void checkConsole(EndpointSettings console, List<String> problems) {
    if (console.enabled() && !allowInsecure && !isLoopback(console.host()) && (!tls.enabled() || !auth.enabled())) {
      problems.add("futureq.console.host: \"" + console.host() + "\" can be reached from other machines, and "
          + "the API's TLS or authentication is off: bind a loopback address (127.0.0.1), turn "
          + "futureq.security.tls and futureq.security.auth on, or set futureq.security.allow-insecure = true");
    }
  }

  /** Whether {@code host} is a loopback address (a name is resolved; one that does not resolve is not). */
  public static boolean isLoopback(String host) {
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }
}
