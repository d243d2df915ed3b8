package io.futureq.reliability;

import io.futureq.e2e.BrokerJvm;
import io.futureq.e2e.TestPorts;
import io.futureq.testing.ProcessReady;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A broker run as real {@code futureq server} processes over one data directory and one config
 * file with fixed free loopback ports, so that it can be SIGKILLed and started again in place.
 * One instance spans every incarnation; {@link #start} launches the next one.
 */
public final class BrokerNode implements AutoCloseable {
  /** Exit status Java reports for a process ended by SIGKILL (128 + 9). */
  public static final int SIGKILL_STATUS = 137;

  public final Path dir;
  public final Path data;
  public final Path config;
  public final int grpcPort;
  public final int managementPort;
  private final List<String> launcher;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private Process process;
  private Path log;
  private int incarnation;

  private BrokerNode(Path dir, Path data, Path config, int grpcPort, int managementPort, List<String> launcher) {
    this.dir = dir;
    this.data = data;
    this.config = config;
    this.grpcPort = grpcPort;
    this.managementPort = managementPort;
    this.launcher = launcher;
  }

  /**
   * Writes the config file once (free loopback ports for gRPC, management and metrics) and returns
   * a node that is not running yet.
   *
   * @param launcher the command that runs the CLI ({@code [".../bin/futureq"]}), or empty to run
   *     {@code java -cp <this class path> io.futureq.cli.FutureqCommand} directly, which is what
   *     {@code bin/futureq} execs
   */
  public static BrokerNode create(Path dir, String extraConfig, List<String> launcher) throws IOException {
    Files.createDirectories(dir);
    Path data = dir.resolve("data");
    int grpc = TestPorts.free();
    int management = TestPorts.free();
    int metrics = TestPorts.free();
    Path conf = dir.resolve("broker.conf");
    Files.writeString(conf, String.join("\n",
        "futureq.storage.data-dir = \"" + data + "\"",
        "futureq.api.host = 127.0.0.1",
        "futureq.api.port = " + grpc,
        "futureq.management.host = 127.0.0.1",
        "futureq.management.port = " + management,
        "futureq.metrics.host = 127.0.0.1",
        "futureq.metrics.port = " + metrics,
        "futureq.console.enabled = false",
        "futureq.cluster.remoting.host = 127.0.0.1",
        "futureq.cluster.remoting.port = 0",
        extraConfig, ""));
    return new BrokerNode(dir, data, conf, grpc, management, List.copyOf(launcher));
  }

  /** Launches the next incarnation on the same config and data, and waits for GET /ready. */
  public synchronized BrokerNode start(Duration within) throws Exception {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException("broker still running (pid " + process.pid() + ")");
    }
    log = dir.resolve("broker-" + incarnation++ + ".log");
    List<String> command = new ArrayList<>();
    ProcessBuilder builder;
    if (launcher.isEmpty()) {
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.add("-Xmx512m");
      command.addAll(BrokerJvm.OPTIONS);
      command.addAll(List.of("-cp", System.getProperty("java.class.path"),
          "io.futureq.cli.FutureqCommand"));
      command.addAll(List.of("server", "--config", config.toString()));
      builder = new ProcessBuilder(command);
    } else {
      command.addAll(launcher);
      command.addAll(List.of("server", "--config", config.toString()));
      builder = new ProcessBuilder(command);
      builder.environment().putIfAbsent("JAVA_OPTS", BrokerJvm.javaOpts("512m"));
    }
    process = builder.redirectErrorStream(true).redirectOutput(log.toFile()).start();
    awaitReady(within);
    return this;
  }

  private void awaitReady(Duration within) {
    ProcessReady.await("broker", process, ProcessReady.url("127.0.0.1", managementPort), within, () -> tail(80));
  }

  public synchronized boolean alive() {
    return process != null && process.isAlive();
  }

  public synchronized long pid() {
    return process.pid();
  }

  /**
   * SIGKILLs the running broker ({@link Process#destroyForcibly()} is {@code kill(pid, SIGKILL)} on
   * Linux) and checks that it died of SIGKILL: exit status 137, with no graceful shutdown.
   *
   * @return the exit status (always {@link #SIGKILL_STATUS})
   * @throws AssertionError if the broker had already exited on its own, or did not die of SIGKILL
   */
  public synchronized int kill() throws Exception {
    if (!process.isAlive()) {
      throw new AssertionError("broker (pid " + process.pid() + ") exited on its own with " + process.exitValue()
          + " before the kill:\n" + tail(80));
    }
    String command = process.info().command().orElse("?");
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new AssertionError("broker (pid " + process.pid() + ") still alive 30 s after SIGKILL");
    }
    int status = process.exitValue();
    if (status != SIGKILL_STATUS) {
      throw new AssertionError("broker " + command + " (pid " + process.pid() + ") exited with " + status
          + ", not " + SIGKILL_STATUS + " (SIGKILL)");
    }
    if (!command.endsWith("java")) {
      throw new AssertionError("the killed process was " + command + ", not the broker JVM");
    }
    return status;
  }

  /** The last {@code lines} lines of the current incarnation's output. */
  public synchronized String tail(int lines) {
    try {
      List<String> all = Files.readAllLines(log);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  /** Stops the running incarnation, if any, with SIGTERM (graceful), then SIGKILL after 30 s. */
  @Override
  public synchronized void close() {
    if (process == null || !process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
