package io.futureq.app;

import io.futureq.config.BrokerSettings;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/**
 * Tries every port the broker will listen on before anything starts, so a port in use stops start-up with one
 * line naming its setting. Left to the servers themselves, a taken port shows as a page of Pekko or Ratis stack
 * traces, late, after storage was opened. The servers still bind for real afterwards; a port taken in between
 * fails there.
 */
final class PortCheck {
  private record Listener(String key, String host, int port) {
    String address() {
      return host + ":" + port;
    }

    boolean clashesWith(Listener other) {
      return port == other.port && (host.equals(other.host) || wildcard(host) || wildcard(other.host));
    }

    private static boolean wildcard(String host) {
      return host.equals("0.0.0.0") || host.equals("::") || host.isEmpty();
    }
  }

  private PortCheck() {}

  /** @throws StartupException naming the first setting whose port is taken or given twice */
  static void requireFree(BrokerSettings settings) {
    List<Listener> listeners = listeners(settings);
    List<ServerSocket> held = new ArrayList<>();
    try {
      for (int i = 0; i < listeners.size(); i++) {
        Listener l = listeners.get(i);
        for (Listener earlier : listeners.subList(0, i)) {
          if (l.clashesWith(earlier)) {
            throw new StartupException(l.key() + ": port " + l.port() + " is also " + earlier.key()
                + "; give each its own port", null);
          }
        }
        held.add(bind(l));
      }
    } finally {
      held.forEach(PortCheck::closeQuietly);
    }
  }

  private static List<Listener> listeners(BrokerSettings settings) {
    List<Listener> all = new ArrayList<>();
    all.add(new Listener("futureq.api.port", settings.api().host(), settings.api().port()));
    if (settings.metrics().enabled()) {
      all.add(new Listener("futureq.metrics.port", settings.metrics().host(), settings.metrics().port()));
    }
    if (settings.console().enabled()) {
      all.add(new Listener("futureq.console.port", settings.console().host(), settings.console().port()));
    }
    all.add(new Listener("futureq.management.port", settings.management().host(), settings.management().port()));
    all.add(new Listener("futureq.cluster.remoting.port", settings.cluster().remotingHost(),
        settings.cluster().remotingPort()));
    if (settings.raft() != null) {
      all.add(new Listener("futureq.raft.address", settings.raft().host(), settings.raft().port()));
    }
    return all.stream().filter(l -> l.port() != 0).toList();
  }

  /** Null when the host does not resolve here or is not local: the server itself reports that. */
  private static ServerSocket bind(Listener l) {
    ServerSocket socket = null;
    try {
      socket = new ServerSocket();
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(l.host(), l.port()));
      return socket;
    } catch (BindException e) {
      closeQuietly(socket);
      boolean inUse = String.valueOf(e.getMessage()).contains("in use");
      throw new StartupException(l.key() + ": " + (inUse ? l.address() + " is in use by another process; stop it "
          + "or choose another port" : "cannot listen on " + l.address() + ": " + e.getMessage()), e);
    } catch (IOException | IllegalArgumentException | SecurityException e) {
      closeQuietly(socket);
      return null;
    }
  }

  private static void closeQuietly(ServerSocket socket) {
    if (socket != null) {
      try {
        socket.close();
      } catch (IOException e) {
        // only probing: nothing was served on it
      }
    }
  }
}
