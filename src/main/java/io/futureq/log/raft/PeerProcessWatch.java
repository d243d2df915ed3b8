package io.futureq.log.raft;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells within a fraction of a second that a peer's process has died, where Raft's election timeout and
 * the cluster's failure detector take seconds: it holds an idle TCP connection to each peer's Raft port,
 * and when that connection ends it connects again at once. A refused connection means the peer's host
 * answers but nothing listens on the port any more: the process that did is gone (killed, crashed or
 * stopped). A paused process (SIGSTOP), a cut network or a dead host refuse nothing (the connection stays
 * idle or the connect times out), so those are left to the timeouts; this only makes the common crash of
 * a process on a live host fast.
 *
 * <p>A peer is reported gone only after a connection to it was up, so a peer still starting is never
 * gone; it is reported back once its port accepts again (it restarted). Listeners run on the peer's
 * watching thread and may block it briefly.
 */
final class PeerProcessWatch implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PeerProcessWatch.class);
  /** A connect that takes longer is not an answer from the peer's host (cut off, or the host is down). */
  private static final Duration CONNECT_TIMEOUT = Duration.ofMillis(500);
  /** Pause between connects while a peer is gone or unreachable. */
  static final Duration RETRY_EVERY = Duration.ofMillis(100);
  /** A connection the peer closed sooner than this is not a sign of life worth reconnecting at once for. */
  private static final Duration SHORT_CONNECTION = Duration.ofSeconds(1);
  /** How often the set of peers is read again (members are added and removed while running). */
  private static final Duration PEERS_EVERY = Duration.ofSeconds(1);

  interface Listener {
    /** The process listening at peer {@code id}'s address is gone. */
    void gone(String id);

    /** Peer {@code id}'s address accepts connections again after it was reported gone. */
    default void back(String id) { }

    /** The first connection to peer {@code id} is up, or the first after it was gone. */
    default void connected(String id) { }
  }

  private final Supplier<Map<String, String>> peers;
  private final Listener listener;
  private final ScheduledExecutorService refresh;
  /** Peer id to its watcher; only the refresh thread changes it. */
  private final Map<String, Watcher> watchers = new HashMap<>();
  private volatile boolean closed;

  /**
   * @param peers the peers to watch now, id to host:port, this node excluded; read again every second
   */
  static PeerProcessWatch start(Supplier<Map<String, String>> peers, Listener listener) {
    return new PeerProcessWatch(peers, listener);
  }

  private PeerProcessWatch(Supplier<Map<String, String>> peers, Listener listener) {
    this.peers = peers;
    this.listener = listener;
    this.refresh = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "futureq-peer-watch");
      t.setDaemon(true);
      return t;
    });
    refresh.scheduleWithFixedDelay(this::refreshPeers, 0, PEERS_EVERY.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Whether the peer's process is known gone now. */
  boolean isGone(String id) {
    Watcher w;
    synchronized (watchers) {
      w = watchers.get(id);
    }
    return w != null && w.gone;
  }

  private void refreshPeers() {
    Map<String, String> now;
    try {
      now = peers.get();
    } catch (RuntimeException e) {
      return; // the server is stopping; the next round or close() settles it
    }
    synchronized (watchers) {
      watchers.entrySet().removeIf(e -> {
        boolean stale = !e.getValue().address.equals(now.get(e.getKey()));
        if (stale) {
          e.getValue().stop();
        }
        return stale;
      });
      now.forEach((id, address) -> {
        if (!closed && !watchers.containsKey(id)) {
          Watcher w = new Watcher(id, address);
          watchers.put(id, w);
          w.thread.start();
        }
      });
    }
  }

  @Override
  public void close() {
    closed = true;
    refresh.shutdownNow();
    synchronized (watchers) {
      watchers.values().forEach(Watcher::stop);
      watchers.clear();
    }
  }

  /** One peer's connection, on a thread of its own: it spends its life blocked in a read. */
  private final class Watcher implements Runnable {
    final String id;
    final String address;
    final Thread thread;
    volatile Socket socket;
    volatile boolean stopped;
    /** Reported gone and not back yet. */
    volatile boolean gone;

    Watcher(String id, String address) {
      this.id = id;
      this.address = address;
      this.thread = new Thread(this, "futureq-peer-watch-" + id);
      thread.setDaemon(true);
    }

    @Override
    public void run() {
      boolean wasConnected = false;
      byte[] discard = new byte[256];
      while (!stopped) {
        long connectedAt = 0;
        try (Socket s = new Socket()) {
          socket = s;
          s.connect(socketAddress(address), (int) CONNECT_TIMEOUT.toMillis());
          if (s.getLocalPort() == s.getPort() && s.getLocalAddress().equals(s.getInetAddress())) {
            // Linux may connect a socket to itself when nothing listens on a port of the ephemeral range
            throw new ConnectException("connected to itself: nothing listens on " + address);
          }
          connectedAt = System.nanoTime();
          boolean first = !wasConnected;
          wasConnected = true;
          if (gone) {
            gone = false;
            first = true;
            LOG.info("Raft peer {} at {} accepts connections again", id, address);
            listener.back(id);
          }
          if (first) {
            listener.connected(id);
          }
          InputStream in = s.getInputStream();
          while (in.read(discard) >= 0) {
            // the peer sends nothing unless it speaks first; blocked here until the connection ends
          }
        } catch (ConnectException e) {
          if (wasConnected && !gone && !stopped) {
            gone = true;
            LOG.info("Raft peer {}'s process is gone: its address {} refuses connections", id, address);
            listener.gone(id);
          }
        } catch (IOException | IllegalArgumentException e) {
          // timed out, reset, or an address that does not resolve: no sign either way
        }
        // Straight back to connect after a connection that lasted (that is how a death is seen at once); a
        // pause after a failed connect, or after a peer that closes what it accepts at once, keeps it from spinning.
        if (!stopped && (connectedAt == 0 || System.nanoTime() - connectedAt < SHORT_CONNECTION.toNanos())) {
          pause();
        }
      }
    }

    void stop() {
      stopped = true;
      Socket s = socket;
      if (s != null) {
        try {
          s.close();
        } catch (IOException e) {
          // closing only to end the blocked read
        }
      }
      thread.interrupt();
    }

    private void pause() {
      try {
        Thread.sleep(RETRY_EVERY.toMillis());
      } catch (InterruptedException e) {
        stopped = true;
      }
    }
  }

  private static InetSocketAddress socketAddress(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("no port in " + hostPort);
    }
    return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
  }
}
