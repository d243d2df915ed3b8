package io.futureq.log.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.e2e.TestPorts;
import io.futureq.testing.Await;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The watch over real loopback sockets: a peer is a server socket that accepts and holds connections. */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class PeerProcessWatchTest {
  private final BlockingQueue<String> events = new LinkedBlockingQueue<>();
  private final List<Peer> peers = new CopyOnWriteArrayList<>();
  private PeerProcessWatch watch;

  @AfterEach
  void close() throws IOException {
    if (watch != null) {
      watch.close();
    }
    for (Peer peer : peers) {
      peer.close();
    }
  }

  @Test
  void aPeerWhosePortClosesIsGoneAtOnceAndBackWhenItListensAgain() throws Exception {
    Peer peer = listen(0);
    watch = PeerProcessWatch.start(() -> Map.of("p1", peer.address()), recorder());
    assertEquals("connected p1", next());

    peer.close(); // what the kernel does to a killed process's sockets
    assertEquals("gone p1", next());
    assertTrue(watch.isGone("p1"));
    assertTrue(watch.isGone("p1"), "still gone while nothing listens");

    Peer restarted = listen(peer.port);
    assertEquals("back p1", next());
    assertEquals("connected p1", next());
    assertEquals(null, events.poll(300, TimeUnit.MILLISECONDS), "one connection, told once");
    assertFalse(watch.isGone("p1"));
    restarted.close();
    assertEquals("gone p1", next());
  }

  @Test
  void aPeerThatNeverAcceptedIsNotGoneAndOneThatHoldsItsConnectionsIsNeither() throws Exception {
    int nothingListens = TestPorts.free();
    Peer silent = listen(0); // accepts and never answers, as a paused (SIGSTOPped) process's kernel does
    watch = PeerProcessWatch.start(() -> Map.of("never", "127.0.0.1:" + nothingListens, "silent", silent.address()),
        recorder());
    assertEquals("connected silent", next());
    // The watch retries the silent port every 100 ms; ten rounds and more tell nothing.
    assertEquals(null, events.poll(1500, TimeUnit.MILLISECONDS));
    assertFalse(watch.isGone("never"));
    assertFalse(watch.isGone("silent"));
  }

  @Test
  void aPeerRemovedFromTheGroupIsNoLongerWatched() throws Exception {
    Peer peer = listen(0);
    Map<String, String> group = new ConcurrentHashMap<>(Map.of("p1", peer.address()));
    AtomicInteger groupReads = new AtomicInteger();
    watch = PeerProcessWatch.start(() -> {
      groupReads.incrementAndGet();
      return Map.copyOf(group);
    }, recorder());
    assertEquals("connected p1", next());
    group.clear();
    // Every read counted from here sees the group empty. Rounds run one after another on one thread (every second),
    // so a second such read means the round of the first, which stops watching p1, is over.
    int readsBefore = groupReads.get();
    Await.until("the watch read the emptied group and ended that round", Duration.ofSeconds(10),
        () -> groupReads.get() >= readsBefore + 2, () -> "reads since: " + (groupReads.get() - readsBefore));
    peer.close();
    assertEquals(null, events.poll(1, TimeUnit.SECONDS));
  }

  private PeerProcessWatch.Listener recorder() {
    return new PeerProcessWatch.Listener() {
      @Override
      public void gone(String id) {
        events.add("gone " + id);
      }

      @Override
      public void back(String id) {
        events.add("back " + id);
      }

      @Override
      public void connected(String id) {
        events.add("connected " + id);
      }
    };
  }

  private String next() throws InterruptedException {
    String event = events.poll(20, TimeUnit.SECONDS);
    if (event == null) {
      throw new AssertionError("no event from the watch within 20 s");
    }
    return event;
  }

  private Peer listen(int port) throws IOException {
    Peer peer = new Peer(port);
    peers.add(peer);
    return peer;
  }

  /** A server socket on loopback whose accepted connections stay open until it closes. */
  private static final class Peer implements AutoCloseable {
    final ServerSocket server;
    final int port;
    /** Guarded by this; a connection accepted after close is closed at once (a killed process's kernel closes all). */
    private final List<Socket> accepted = new ArrayList<>();
    private boolean closed;

    Peer(int port) throws IOException {
      server = new ServerSocket();
      server.setReuseAddress(true);
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
      this.port = server.getLocalPort();
      Thread acceptor = new Thread(() -> {
        try {
          while (true) {
            keep(server.accept());
          }
        } catch (IOException serverClosed) {
          // the peer was closed
        }
      }, "peer-" + this.port);
      acceptor.setDaemon(true);
      acceptor.start();
    }

    String address() {
      return "127.0.0.1:" + port;
    }

    // The watcher is told "connected" once its connect returns, which may be before this peer's acceptor
    // has taken the connection; one taken after close() must not stay open, or the watch never sees the end.
    private synchronized void keep(Socket connection) throws IOException {
      if (closed) {
        connection.close();
      } else {
        accepted.add(connection);
      }
    }

    @Override
    public synchronized void close() throws IOException {
      closed = true;
      server.close();
      for (Socket s : accepted) {
        s.close();
      }
    }
  }
}
