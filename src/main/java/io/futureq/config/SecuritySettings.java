package io.futureq.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * Who may reach the broker. Without authentication anyone who reaches the gRPC port can publish,
 * consume, cancel and administer: by default it listens on loopback only, and a wider bind without
 * authentication needs {@code futureq.security.allow-insecure = true}, said out loud.
 *
 * @param allowInsecure serve the gRPC API beyond loopback without TLS or authentication
 * @param auth bearer tokens, permissions and publish rate limits
 */
public record SecuritySettings(boolean allowInsecure, AuthSettings auth) {

  static SecuritySettings from(SettingsReader r) {
    return new SecuritySettings(r.bool("futureq.security.allow-insecure"), AuthSettings.from(r));
  }

  /** Refuses a gRPC bind other machines can reach unless insecure serving was allowed. */
  void check(ApiSettings api, List<String> problems) {
    auth.check(problems);
    if (!allowInsecure && !auth.enabled() && !isLoopback(api.host())) {
      problems.add("futureq.api.host: \"" + api.host() + "\" can be reached from other machines, and this broker "
          + "has no authentication (futureq.security.auth.enabled = false): bind a loopback address (127.0.0.1), "
          + "turn authentication on, or set "
          + "futureq.security.allow-insecure = true to let anyone who reaches it publish, consume and administer");
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
