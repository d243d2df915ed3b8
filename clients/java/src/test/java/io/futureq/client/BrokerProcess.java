package io.futureq.client;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * A broker run as a process of its own ({@code futureq server}) on the root build's class path, which the root build
 * passes as {@code futureq.broker.classpath}: this artifact's end-to-end tests run against it with their own class
 * path (OkHttp transport, no broker classes). Its output goes to {@code broker.log} in its directory.
 */
final class BrokerProcess implements AutoCloseable {
  /** Where the test JVMs' ports come from: each JVM ({@code forkCount}) takes a slice of its own, so none race. */
  private static final int FORKS = Math.max(1, Integer.getInteger("test.ports.forks", 1));
  private static final int FORK = forkIndex(FORKS);
  private static final int SLICE = 10_000 / FORKS;
  private static final AtomicInteger NEXT = new AtomicInteger(20_000 + FORK * SLICE);

  private final Path dir;
  private final List<String> command;
  private final int port;
  private Process process;

  private BrokerProcess(Path dir, List<String> command, int port) {
    this.dir = dir;
    this.command = command;
    this.port = port;
  }

  /** The root build's broker class path, or blank where these tests run on their own (they are skipped then). */
  static String classPath() {
    return System.getProperty("futureq.broker.classpath", "");
  }

  /**
   * Starts a broker on loopback ports of this JVM's slice, over {@code dir}, with {@code settings} (HOCON lines)
   * after the test defaults.
   */
  static BrokerProcess start(Path dir, List<String> settings) throws IOException {
    int port = freePort();
    List<String> lines = new ArrayList<>(List.of(
        "futureq.storage.data-dir = \"" + dir.resolve("data") + "\"",
        "futureq.api.host = 127.0.0.1",
        "futureq.api.port = " + port,
        "futureq.management.host = 127.0.0.1",
        "futureq.management.port = " + freePort(),
        "futureq.metrics.enabled = false",
        "futureq.console.enabled = false",
        "futureq.cluster.remoting.port = 0"));
    lines.addAll(settings);
    Path conf = dir.resolve("broker.conf");
    Files.writeString(conf, String.join("\n", lines));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    BrokerProcess broker = new BrokerProcess(dir, List.of(java, "-Xmx512m", "-XX:TieredStopAtLevel=1", "-cp",
        classPath(), "io.futureq.cli.FutureqCommand", "server", "--config", conf.toString()), port);
    broker.launch();
    return broker;
  }

  int port() {
    return port;
  }

  /**
   * Returns once a client of {@code clients} gets the broker's cluster info; fails naming the broker's log if the
   * process exits first or 90 s pass.
   */
  void awaitReady(Supplier<FutureQClient> clients) throws Exception {
    try (FutureQClient client = clients.get()) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
      while (true) {
        try {
          client.clusterInfo().get(5, TimeUnit.SECONDS);
          return;
        } catch (ExecutionException notYet) {
          if (!process.isAlive() || System.nanoTime() > deadline) {
            throw new AssertionError("broker did not start: " + log(), notYet);
          }
          Thread.sleep(200); // the poll interval: a refused connection fails at once, and nothing else signals
        }
      }
    }
  }

  /** kill -9. */
  void kill() throws InterruptedException {
    process.destroyForcibly().waitFor();
  }

  /** Starts the broker again with the same command: same ports, same data. */
  void launch() throws IOException {
    process = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("broker.log").toFile())).start();
  }

  String log() {
    try {
      return Files.readString(dir.resolve("broker.log"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** SIGTERM, then kill -9 after 30 s. */
  @Override
  public void close() throws InterruptedException {
    if (process != null && process.isAlive()) {
      process.destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
    }
  }

  private static int freePort() throws IOException {
    for (int i = 0; i < SLICE; i++) {
      int candidate = NEXT.getAndIncrement();
      try (ServerSocket s = new ServerSocket(candidate, 1, InetAddress.getLoopbackAddress())) {
        return s.getLocalPort();
      } catch (IOException taken) {
        // another process has it: the next one
      }
    }
    throw new IOException("no free port left in this JVM's slice");
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
