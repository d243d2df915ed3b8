package io.futureq.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Ports for the tests' servers, taken below the kernel's ephemeral range. A port the kernel hands out for a
 * bind to port 0 is also one it may hand to any outgoing connection as its local port: between a test choosing
 * it and a broker binding it, a connection of another node (remoting, Raft, gRPC) could take it, and the broker
 * failed with "Address already in use" (seen in CI). Ports below the range are never given out that way. Each
 * is taken once per JVM, in turn from a random start, so a port a previous test left in TIME_WAIT is not
 * handed out again soon.
 *
 * <p>The build runs the test classes in several JVMs at once ({@code forkCount} in pom.xml); each takes its ports
 * from a slice of its own ({@code test.ports.fork} of {@code test.ports.forks}), so two JVMs never choose the
 * same port between one's probe and its bind.
 */
public final class TestPorts {
  private static final int FORKS = Math.max(1, Integer.getInteger("test.ports.forks", 1));
  private static final int FORK = forkIndex(FORKS);
  private static final int SLICE = (ephemeralRangeStart() - 10_000) / FORKS;
  private static final int LOWEST = 10_000 + FORK * SLICE;
  /** Below Linux's default ephemeral range (32768-60999) where /proc does not say otherwise. */
  private static final int HIGHEST = LOWEST + SLICE - 1;
  private static final AtomicInteger NEXT =
      new AtomicInteger(LOWEST + ThreadLocalRandom.current().nextInt(HIGHEST - LOWEST + 1));

  private TestPorts() {}

  /** A port nothing listens on now; bind it soon. */
  public static int free() {
    try (ServerSocket socket = reserve()) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code n} distinct free ports, all held until all are found. */
  public static int[] distinct(int n) {
    List<ServerSocket> held = new ArrayList<>();
    try {
      int[] ports = new int[n];
      for (int i = 0; i < n; i++) {
        ServerSocket socket = reserve();
        held.add(socket);
        ports[i] = socket.getLocalPort();
      }
      return ports;
    } finally {
      held.forEach(TestPorts::closeQuietly);
    }
  }

  /**
   * A server socket bound to a free port on every interface, for the caller to close right before it binds the
   * port.
   */
  public static ServerSocket reserve() {
    for (int tries = 0; tries <= HIGHEST - LOWEST; tries++) {
      int port = LOWEST + Math.floorMod(NEXT.getAndIncrement() - LOWEST, HIGHEST - LOWEST + 1);
      ServerSocket socket = null;
      try {
        socket = new ServerSocket();
        socket.setReuseAddress(true);
        socket.bind(new InetSocketAddress(port));
        return socket;
      } catch (BindException taken) {
        closeQuietly(socket);
      } catch (IOException e) {
        closeQuietly(socket);
        throw new UncheckedIOException(e);
      }
    }
    throw new IllegalStateException("no free port between " + LOWEST + " and " + HIGHEST);
  }

  private static void closeQuietly(ServerSocket socket) {
    if (socket != null) {
      try {
        socket.close();
      } catch (IOException e) {
        // a probe: closing it loses nothing
      }
    }
  }

  private static int ephemeralRangeStart() {
    try {
      String range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim();
      int start = Integer.parseInt(range.split("\\s+")[0]);
      return start > 11_000 ? start : 32_768;
    } catch (IOException | RuntimeException e) {
      return 32_768;
    }
  }

  /**
   * This JVM's slice (0-based). With several JVMs each must know its number (pom.xml passes it in argLine): without
   * it they all took the first slice, and two brokers started at once took the same port.
   */
  static int forkIndex(int forks) {
    String fork = System.getProperty("test.ports.fork", "");
    if (forks == 1 && fork.isEmpty()) {
      return 0;
    }
    if (!fork.matches("[1-9][0-9]*")) {
      throw new IllegalStateException("test.ports.fork is '" + fork + "' in one of " + forks
          + " test JVMs: each needs its number (surefire's ${surefire.forkNumber}) to take ports of its own");
    }
    return Math.floorMod(Integer.parseInt(fork) - 1, forks);
  }
}
