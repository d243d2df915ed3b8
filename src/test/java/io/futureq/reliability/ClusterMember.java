package io.futureq.reliability;

import io.futureq.api.grpc.RaftInfo;
import io.futureq.client.FutureQClient;
import io.futureq.e2e.BrokerJvm;
import io.futureq.testing.ProcessReady;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One node of a three-node cluster run as real {@code futureq server} processes (cluster mode, as
 * {@code ClusterProcessE2ETest}), over one config file and one data directory (store and Raft log)
 * for all its incarnations, so that it can be SIGKILLed and started again in place, or SIGSTOPped
 * and continued. Every port is fixed, the Pekko remoting port too: a restarted node has the address
 * of the incarnation it replaces, so the cluster lets the new one in at once instead of waiting for
 * the split-brain resolver to down the old one.
 */
final class ClusterMember implements AutoCloseable {
  /** Ports of one node: gRPC, management, Raft, remoting. */
  record Ports(int grpc, int management, int raft, int remoting) {}

  final int index;
  final String nodeId;
  final String host;
  final Ports ports;
  final Path dir;
  final Path store;
  final Path config;
  private final List<String> prefix;
  private Process process;
  private Path log;
  private int incarnation;

  private ClusterMember(int index, String host, Ports ports, Path dir, Path config, List<String> prefix) {
    this.index = index;
    this.nodeId = "node-" + (index + 1);
    this.host = host;
    this.ports = ports;
    this.dir = dir;
    this.store = dir.resolve("store");
    this.config = config;
    this.prefix = prefix;
  }

  /**
   * Writes each node's config (every node on {@code hosts[i]}, its ports {@code ports[i]}) and
   * returns the nodes, not running yet.
   *
   * @param prefix a command the JVM runs under (e.g. {@code ip netns exec ns1}), or empty
   */
  static List<ClusterMember> create(Path workDir, String[] hosts, Ports[] ports, String extraConfig,
      List<List<String>> prefix) throws IOException {
    StringBuilder peers = new StringBuilder();
    StringBuilder contacts = new StringBuilder();
    for (int j = 0; j < hosts.length; j++) {
      peers.append("node-").append(j + 1).append(" = \"").append(hosts[j]).append(':').append(ports[j].raft())
          .append("\"\n");
      contacts.append(j == 0 ? "" : ", ").append('"').append(hosts[j]).append(':').append(ports[j].management())
          .append('"');
    }
    List<ClusterMember> members = new ArrayList<>();
    for (int i = 0; i < hosts.length; i++) {
      Path dir = workDir.resolve("node-" + (i + 1));
      Files.createDirectories(dir);
      Path conf = workDir.resolve("node-" + (i + 1) + ".conf");
      Files.writeString(conf, String.join("\n",
          "futureq.node-id = node-" + (i + 1),
          "futureq.api { host = \"" + hosts[i] + "\", port = " + ports[i].grpc() + " }",
          // Network namespaces give the members private addresses of their own: no one else reaches them.
          hosts[i].startsWith("127.") ? ""
              : "futureq.security.allow-insecure = true\nfutureq.cluster.allow-insecure = true",
          "futureq.metrics.enabled = false",
          "futureq.console.enabled = false",
          "futureq.management { host = \"" + hosts[i] + "\", port = " + ports[i].management() + " }",
          "futureq.storage.data-dir = \"" + dir.resolve("store") + "\"",
          "futureq.raft.storage-dir = \"" + dir.resolve("raft") + "\"",
          "futureq.raft.peers {\n" + peers + "}",
          "futureq.cluster { enabled = true, remoting { host = \"" + hosts[i] + "\", port = " + ports[i].remoting()
              + " } }",
          "futureq.cluster.discovery.contact-points = [" + contacts + "]",
          "pekko.management.cluster.bootstrap.contact-point-discovery.stable-margin = 1s",
          "pekko.management.cluster.bootstrap.contact-point-discovery.interval = 500ms",
          extraConfig, ""));
      members.add(new ClusterMember(i, hosts[i], ports[i], dir, conf, prefix.get(i)));
    }
    return members;
  }

  String grpcTarget() {
    return host + ":" + ports.grpc();
  }

  /** Launches the next incarnation; does not wait for it (see {@link #awaitReady}). */
  synchronized void launch() throws IOException {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException(nodeId + " still running (pid " + process.pid() + ")");
    }
    log = dir.getParent().resolve(nodeId + "-" + incarnation++ + ".log");
    List<String> command = new ArrayList<>(prefix);
    command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx384m"));
    command.addAll(BrokerJvm.OPTIONS);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.futureq.cli.FutureqCommand", "server",
        "--config", config.toString()));
    process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  /** Waits until GET /ready answers 200; fails if the process exits meanwhile. */
  void awaitReady(Duration within) {
    Process running;
    synchronized (this) {
      running = process;
    }
    ProcessReady.await(nodeId, running, ProcessReady.url(host, ports.management()), within, () -> tail(80));
  }

  synchronized boolean alive() {
    return process != null && process.isAlive();
  }

  synchronized long pid() {
    return process.pid();
  }

  /** SIGKILL; checks that the node had not exited on its own and died of SIGKILL (137). */
  synchronized void kill() throws Exception {
    if (!process.isAlive()) {
      throw new AssertionError(nodeId + " exited on its own with " + process.exitValue() + " before the kill:\n"
          + tail(80));
    }
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new AssertionError(nodeId + " still alive 30 s after SIGKILL");
    }
    if (process.exitValue() != BrokerNode.SIGKILL_STATUS) {
      throw new AssertionError(nodeId + " exited with " + process.exitValue() + ", not 137 (SIGKILL)");
    }
  }

  /** Sends {@code signal} (STOP, CONT) to the JVM. */
  synchronized void signal(String signal) throws Exception {
    if (!process.isAlive()) {
      throw new AssertionError(nodeId + " exited with " + process.exitValue() + " before SIG" + signal + ":\n"
          + tail(80));
    }
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new AssertionError("kill -" + signal + " " + process.pid() + " failed");
    }
  }

  /** This node's own view of Raft (a client that talks to it alone), or null if it does not answer. */
  RaftInfo raft() {
    try (FutureQClient admin = FutureQClient.builder().target(grpcTarget()).discoveryInterval(Duration.ZERO)
        .requestTimeout(Duration.ofSeconds(5)).build()) {
      return admin.clusterInfo().get(10, TimeUnit.SECONDS).getRaft();
    } catch (Exception e) {
      lastRaftError = e.toString();
      return null;
    }
  }

  /** Why the last {@link #raft()} returned null. */
  volatile String lastRaftError = "";

  /** SIGTERM, waits for the exit; returns its status (0 for a clean shutdown), or -1 if it had to be killed. */
  synchronized int terminate() throws InterruptedException {
    if (process == null) {
      return -1;
    }
    if (!process.isAlive()) {
      return process.exitValue();
    }
    process.destroy();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
      return -1;
    }
    return process.exitValue();
  }

  synchronized String tail(int lines) {
    try {
      List<String> all = Files.readAllLines(log);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  /** Continues a stopped node and kills it: nothing of it survives the run. */
  @Override
  public synchronized void close() {
    if (process != null && process.isAlive()) {
      try {
        new ProcessBuilder("kill", "-CONT", Long.toString(process.pid())).start().waitFor(5, TimeUnit.SECONDS);
      } catch (Exception e) {
        // it dies anyway
      }
      process.destroyForcibly();
      try {
        process.waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
