package io.futureq.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * Who may reach the broker. Without TLS, anyone on the path reads and forges its traffic: by default it listens
 * on loopback only, and a wider bind without TLS needs {@code futureq.security.allow-insecure = true}, said out
 * loud.
 *
 * @param allowInsecure serve the gRPC API beyond loopback without TLS
 * @param tls TLS (and client certificates) on the gRPC API
 */
public record SecuritySettings(boolean allowInsecure, ApiTlsSettings tls) {

  static SecuritySettings from(SettingsReader r) {
    return new SecuritySettings(r.bool("futureq.security.allow-insecure"), ApiTlsSettings.from(r));
  }

  /** Refuses a plaintext gRPC bind other machines can reach unless insecure serving was allowed. */
  void check(ApiSettings api, List<String> problems) {
    if (!allowInsecure && !tls.enabled() && !isLoopback(api.host())) {
      problems.add("futureq.api.host: \"" + api.host() + "\" can be reached from other machines, and "
          + "futureq.security.tls.enabled = false: bind a loopback address (127.0.0.1), turn TLS on, or set "
          + "futureq.security.allow-insecure = true to serve plaintext to anyone who reaches it");
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
