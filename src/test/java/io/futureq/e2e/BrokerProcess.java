package io.futureq.e2e;

import io.futureq.testing.ProcessReady;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A broker in its own JVM (same classpath as the tests), configured through a HOCON file. */
final class BrokerProcess implements AutoCloseable {
  final Process process;
  final Path log;
  final int grpcPort;
  final int managementPort;

  private BrokerProcess(Process process, Path log, int grpcPort, int managementPort) {
    this.process = process;
    this.log = log;
    this.grpcPort = grpcPort;
    this.managementPort = managementPort;
  }

  static Path writeConfig(Path dir, Path data, int grpcPort, int managementPort, String extra) throws IOException {
    Path conf = dir.resolve("broker-" + grpcPort + ".conf");
    Files.writeString(conf, String.join("\n",
        "futureq.storage.data-dir = \"" + data + "\"",
        "futureq.api.host = 127.0.0.1",
        "futureq.api.port = " + grpcPort,
        "futureq.management.port = " + managementPort,
        "futureq.metrics.port = " + TestPorts.free(),
        "futureq.console.enabled = false",
        "futureq.metrics.host = 127.0.0.1",
        "futureq.cluster.remoting.port = 0",
        extra));
    return conf;
  }

  static BrokerProcess start(Path dir, Path data, String extraConfig) throws IOException {
    return start(dir, data, extraConfig, Map.of(), List.of());
  }

  /**
   * As {@link #start(Path, Path, String)}, with {@code environment} added to the process's environment and
   * {@code jvmOptions} before the main class.
   */
  static BrokerProcess start(Path dir, Path data, String extraConfig, Map<String, String> environment,
      List<String> jvmOptions) throws IOException {
    int grpc = TestPorts.free();
    int management = TestPorts.free();
    Path conf = writeConfig(dir, data, grpc, management, extraConfig);
    Path log = dir.resolve("broker-" + grpc + ".log");
    Process p = launch(conf, log, environment, jvmOptions);
    return new BrokerProcess(p, log, grpc, management);
  }

  /** As {@link #start(Path, Path, String)} on a management port the caller chose (cluster contact points name it). */
  static BrokerProcess startWithManagementPort(Path dir, Path data, int management, String extraConfig)
      throws IOException {
    int grpc = TestPorts.free();
    Path conf = writeConfig(dir, data, grpc, management, extraConfig);
    Path log = dir.resolve("broker-" + grpc + ".log");
    return new BrokerProcess(launch(conf, log), log, grpc, management);
  }

  /** The metrics port written to this broker's configuration file. */
  int metricsPort() throws IOException {
    String conf = Files.readString(log.resolveSibling("broker-" + grpcPort + ".conf"));
    return Integer.parseInt(conf.replaceAll("(?s).*futureq.metrics.port = (\\d+).*", "$1"));
  }

  /** As {@link #start}, through {@code bin/futureq server} (which execs the JVM) on the test classpath. */
  static BrokerProcess startWithLauncher(Path dir, Path data, String extraConfig) throws IOException {
    int grpc = TestPorts.free();
    int management = TestPorts.free();
    Path conf = writeConfig(dir, data, grpc, management, extraConfig);
    Path log = dir.resolve("broker-" + grpc + ".log");
    ProcessBuilder builder = new ProcessBuilder(List.of(Path.of("bin", "futureq").toAbsolutePath().toString(),
        "server", "--config", conf.toString()));
    builder.environment().put("FUTUREQ_CLASSPATH", System.getProperty("java.class.path"));
    builder.environment().put("JAVA_OPTS", BrokerJvm.javaOpts("512m"));
    Process p = builder.redirectErrorStream(true).redirectOutput(log.toFile()).start();
    return new BrokerProcess(p, log, grpc, management);
  }

  /** Sends signal {@code name} ({@code TERM}, {@code INT}) to the broker, as a supervisor or a terminal does. */
  void signal(String name) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new AssertionError("kill -" + name + " " + process.pid() + " failed");
    }
  }

  static Process launch(Path conf, Path log) throws IOException {
    return launch(conf, log, Map.of(), List.of());
  }

  static Process launch(Path conf, Path log, Map<String, String> environment, List<String> jvmOptions)
      throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>(List.of(java, "-Xmx512m"));
    command.addAll(BrokerJvm.OPTIONS);
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.futureq.cli.FutureqCommand", "server",
        "--config", conf.toString()));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().putAll(environment);
    return builder.redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  /** Waits until GET /ready answers 200, failing early if the process exits. */
  BrokerProcess awaitReady(Duration within) {
    ProcessReady.await("broker", process, ProcessReady.url("127.0.0.1", managementPort), within,
        () -> Files.readString(log));
    return this;
  }

  String output() throws IOException {
    return Files.readString(log);
  }

  int awaitExit(Duration within) throws Exception {
    if (!process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError("broker still running after " + within + "; its threads:\n" + threadDump()
          + "\nits output:\n" + output());
    }
    return process.exitValue();
  }

  /** The broker's threads as {@code jcmd Thread.print} lists them: where a shutdown that does not end hangs. */
  private String threadDump() {
    try {
      String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
      Process dump = new ProcessBuilder(jcmd, Long.toString(process.pid()), "Thread.print").redirectErrorStream(true)
          .start();
      String threads = new String(dump.getInputStream().readAllBytes());
      dump.waitFor(30, TimeUnit.SECONDS);
      return threads;
    } catch (IOException | InterruptedException e) {
      return "(no thread dump: " + e + ")";
    }
  }

  @Override
  public void close() {
    process.destroyForcibly();
    try {
      process.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static File devNull() {
    return new File("/dev/null");
  }
}
