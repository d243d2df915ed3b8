package io.futureq.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Set;

/**
 * The gRPC address a node gives clients and the other members (GetClusterInfo, the CLI's
 * {@code cluster}), which clients dial when they fail over; never a wildcard like the bind address
 * {@code 0.0.0.0} may be.
 *
 * @param host a host name or IP address clients can reach (an IPv6 address without brackets)
 * @param port the port clients dial; 0 means the port the gRPC server bound
 */
public record AdvertisedAddress(String host, int port) {
  private static final Set<String> WILDCARDS = Set.of("0.0.0.0", "::", "0:0:0:0:0:0:0:0", "*", "");

  /** {@code HOST:PORT} for a server bound on {@code boundPort}. */
  public String at(int boundPort) {
    String h = host.contains(":") ? "[" + host + "]" : host;
    return h + ":" + (port == 0 ? boundPort : port);
  }

  /**
   * Reads {@code futureq.api.advertised-address} ({@code HOST}, {@code HOST:PORT} or {@code [IPv6]:PORT});
   * empty means the bind host if it is not a wildcard, else the remoting host (which the other members
   * already dial), else this machine's address.
   */
  static AdvertisedAddress from(SettingsReader r, String bindHost, String remotingHost) {
    String key = "futureq.api.advertised-address";
    String value = r.string(key).trim();
    if (value.isEmpty()) {
      String host = !wildcard(bindHost) ? bindHost : !wildcard(remotingHost) ? remotingHost : localAddress();
      return new AdvertisedAddress(host, 0);
    }
    String host = value;
    int port = 0;
    int colon = value.lastIndexOf(':');
    boolean bracketed = value.startsWith("[");
    if (bracketed || value.indexOf(':') == colon) {
      int close = bracketed ? value.indexOf(']') : -1;
      if (bracketed && close < 0) {
        r.problem(key + ": '" + value + "' has no closing ']'");
        return new AdvertisedAddress("invalid", 0);
      }
      host = bracketed ? value.substring(1, close) : colon < 0 ? value : value.substring(0, colon);
      int portAt = bracketed ? close + 1 : colon;
      if (portAt < value.length() && portAt >= 0) {
        String portText = value.substring(portAt + 1);
        try {
          port = Integer.parseInt(portText);
        } catch (NumberFormatException e) {
          port = -1;
        }
        if (port < 1 || port > 65535) {
          r.problem(key + ": port '" + portText + "' in '" + value + "' is not 1-65535");
        }
      }
    }
    if (wildcard(host)) {
      r.problem(key + ": '" + value + "' is a wildcard; give an address clients can dial");
    }
    return new AdvertisedAddress(host, Math.max(port, 0));
  }

  private static boolean wildcard(String host) {
    return WILDCARDS.contains(host.trim().replace("[", "").replace("]", ""));
  }

  private static String localAddress() {
    try {
      return InetAddress.getLocalHost().getHostAddress();
    } catch (UnknownHostException e) {
      return "127.0.0.1";
    }
  }
}
