package io.futureq.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * Who may reach the broker. It has no TLS or authentication yet, so anyone who reaches the gRPC
 * port can publish, consume, cancel and administer: by default it listens on loopback only, and a
 * wider bind needs {@code futureq.security.allow-insecure = true}, said out loud.
 *
 * @param allowInsecure serve the gRPC API beyond loopback without TLS or authentication
 */
public record SecuritySettings(boolean allowInsecure) {

  static SecuritySettings from(SettingsReader r) {
    return new SecuritySettings(r.bool("futureq.security.allow-insecure"));
  }

  /** Refuses a gRPC bind other machines can reach unless insecure serving was allowed. */
  void check(ApiSettings api, List<String> problems) {
    if (!allowInsecure && !isLoopback(api.host())) {
      problems.add("futureq.api.host: \"" + api.host() + "\" can be reached from other machines, and this broker "
          + "has no TLS or authentication: bind a loopback address (127.0.0.1), or set "
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
