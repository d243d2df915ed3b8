package io.futureq.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback TCP forwarder that a test can cut and heal: cut closes every connection and refuses
 * new ones (as a partition does to the traffic towards one node), heal lets connections through
 * again. Used in front of a node's Raft port, so the node keeps hosting topics while its replica
 * hears nothing from the leader.
 */
final class TcpProxy implements AutoCloseable {
  private final ServerSocket server;
  private final int target;
  private final List<Socket> open = new CopyOnWriteArrayList<>();
  private volatile boolean cut;
  private volatile boolean closed;

  TcpProxy(int target) throws IOException {
    this.target = target;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::accept, "tcp-proxy-" + server.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return server.getLocalPort();
  }

  synchronized void cut() {
    cut = true;
    open.forEach(TcpProxy::closeQuietly);
    open.clear();
  }

  void heal() {
    cut = false;
  }

  private void accept() {
    while (!closed) {
      try {
        Socket client = server.accept();
        Socket upstream;
        try {
          upstream = new Socket(InetAddress.getLoopbackAddress(), target);
        } catch (IOException e) {
          closeQuietly(client); // the target is not listening (yet): the dialer sees a closed connection
          continue;
        }
        if (!admit(client, upstream)) {
          closeQuietly(client);
          closeQuietly(upstream);
          continue;
        }
        pipe(client, upstream);
        pipe(upstream, client);
      } catch (IOException e) {
        // the proxy was closed
      }
    }
  }

  /** Checked together with cut(), so a connection accepted while the proxy is being cut cannot slip through. */
  private synchronized boolean admit(Socket client, Socket upstream) {
    if (cut) {
      return false;
    }
    open.add(client);
    open.add(upstream);
    return true;
  }

  private void pipe(Socket from, Socket to) {
    Thread t = new Thread(() -> {
      byte[] buffer = new byte[64 << 10];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        for (int n; (n = in.read(buffer)) >= 0; ) {
          out.write(buffer, 0, n);
        }
      } catch (IOException e) {
        // one side closed: close both below
      } finally {
        closeQuietly(from);
        closeQuietly(to);
        open.remove(from);
        open.remove(to);
      }
    }, "tcp-proxy-pipe");
    t.setDaemon(true);
    t.start();
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // already closed
    }
  }

  @Override
  public void close() {
    closed = true;
    cut();
    closeQuietly(server);
  }

  private static void closeQuietly(ServerSocket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // already closed
    }
  }
}
