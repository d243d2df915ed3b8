package io.futureq.cluster;

import io.futureq.client.FutureQClient;
import io.futureq.e2e.BrokerJvm;
import io.futureq.e2e.TestPorts;
import io.futureq.testing.ProcessReady;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Three brokers of one cluster as real processes started through {@code bin/futureq server} on the
 * classes of this build, each with its own data directory and log file under {@code dir}; nodes can be
 * killed with SIGKILL and started again on the same directories and ports.
 */
final class ClusterProcesses implements AutoCloseable {
  static final int SIZE = 3;
  private final Path dir;
  private final List<String> extraSettings;
  private final int[] grpc = new int[SIZE];
  private final int[] management = new int[SIZE];
  private final int[] raft = new int[SIZE];
  private final int[] metrics = new int[SIZE];
  private final Process[] processes = new Process[SIZE];
  private final int[] starts = new int[SIZE];

  /** @param extraSettings HOCON lines added to every node's configuration (they win over the defaults) */
  ClusterProcesses(Path dir, List<String> extraSettings) {
    this.dir = dir;
    this.extraSettings = List.copyOf(extraSettings);
    int[] ports = TestPorts.distinct(4 * SIZE);
    for (int i = 0; i < SIZE; i++) {
      grpc[i] = ports[4 * i];
      management[i] = ports[4 * i + 1];
      raft[i] = ports[4 * i + 2];
      metrics[i] = ports[4 * i + 3];
    }
  }

  /** Starts every node and waits until each is ready. */
  ClusterProcesses startAll() throws Exception {
    for (int i = 0; i < SIZE; i++) {
      start(i);
    }
    for (int i = 0; i < SIZE; i++) {
      awaitReady(i, Duration.ofMinutes(2));
    }
    return this;
  }

  /** Starts node {@code i} (index 0-2, "node-1" to "node-3"); does not wait for it. */
  void start(int i) throws IOException {
    Path conf = dir.resolve("node-" + (i + 1) + ".conf");
    StringBuilder peers = new StringBuilder();
    StringBuilder contacts = new StringBuilder();
    for (int j = 0; j < SIZE; j++) {
      peers.append("node-").append(j + 1).append(" = \"127.0.0.1:").append(raft[j]).append("\"\n");
      contacts.append(j == 0 ? "" : ", ").append("\"127.0.0.1:").append(management[j]).append("\"");
    }
    List<String> lines = new ArrayList<>(List.of(
        "futureq.node-id = node-" + (i + 1),
        "futureq.api { host = 127.0.0.1, port = " + grpc[i] + " }",
        // Off unless extraSettings turns it on; the port is the node's own either way.
        "futureq.metrics { enabled = false, host = 127.0.0.1, port = " + metrics[i] + " }",
        "futureq.console.enabled = false",
        "futureq.management.port = " + management[i],
        "futureq.storage.data-dir = \"" + dir.resolve("node-" + (i + 1) + "/store") + "\"",
        "futureq.raft.storage-dir = \"" + dir.resolve("node-" + (i + 1) + "/raft") + "\"",
        "futureq.raft.peers {\n" + peers + "}",
        "futureq.cluster { enabled = true, remoting.port = 0 }",
        "futureq.cluster.discovery.contact-points = [" + contacts + "]",
        "pekko.management.cluster.bootstrap.contact-point-discovery.stable-margin = 1s",
        "pekko.management.cluster.bootstrap.contact-point-discovery.interval = 500ms"));
    lines.addAll(extraSettings);
    Files.writeString(conf, String.join("\n", lines));
    Path launcher = Path.of(System.getProperty("user.dir"), "bin", "futureq");
    starts[i]++;
    ProcessBuilder builder = new ProcessBuilder(launcher.toString(), "server", "--config", conf.toString())
        .redirectErrorStream(true).redirectOutput(logFile(i).toFile());
    builder.environment().put("FUTUREQ_CLASSPATH", System.getProperty("java.class.path"));
    builder.environment().put("JAVA_OPTS", BrokerJvm.javaOpts("384m"));
    processes[i] = builder.start();
  }

  /** SIGKILL of node {@code i}; returns once the process is gone. */
  void kill(int i) throws InterruptedException {
    processes[i].destroyForcibly();
    processes[i].waitFor(30, TimeUnit.SECONDS);
  }

  /** Waits until node {@code i} answers 200 on /ready (member Up, replica caught up). */
  void awaitReady(int i, Duration within) {
    Process process = processes[i];
    ProcessReady.await("node-" + (i + 1), process, ProcessReady.url("127.0.0.1", management[i]), within,
        () -> log(i) + (process.isAlive() ? "\n" + threadDump(process) : ""));
  }

  /**
   * The threads of a node that is alive but not ready, so that a stall says where it stands (seen once in a loaded
   * run: node-1 neither logged a line nor served /ready for 2 minutes).
   */
  private static String threadDump(Process process) {
    try {
      Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
          String.valueOf(process.pid()), "Thread.print").redirectErrorStream(true).start();
      String dump = new String(jcmd.getInputStream().readAllBytes());
      jcmd.waitFor(30, TimeUnit.SECONDS);
      return "threads of pid " + process.pid() + ":\n" + dump;
    } catch (IOException e) {
      return "no thread dump: " + e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "no thread dump: interrupted";
    }
  }

  /** The index of the Raft leader as node {@code asking} sees it, or -1 if it knows none. */
  int leader(int asking) {
    try (FutureQClient admin = client(asking)) {
      String id = admin.clusterInfo().get(10, TimeUnit.SECONDS).getRaft().getLeaderId();
      return id.startsWith("node-") ? Integer.parseInt(id.substring("node-".length())) - 1 : -1;
    } catch (Exception e) {
      return -1;
    }
  }

  /** A client of node {@code i} only (no discovery), so that what it sees is that node's doing. */
  FutureQClient client(int i) {
    return FutureQClient.builder().target(address(i)).discoveryInterval(Duration.ZERO).build();
  }

  /**
   * Node {@code i}'s Prometheus port (serving only with {@code futureq.metrics.enabled = true} in the extra
   * settings).
   */
  int metricsPort(int i) {
    return metrics[i];
  }

  /** Node {@code i}'s scrape of /metrics, or null where it does not answer. */
  String scrape(int i) {
    try {
      return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metrics[i]
          + "/metrics")).timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()).body();
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /**
   * {@code futureq_published_total} of {@code topic} summed over the live nodes' Prometheus endpoints (0 where it
   * is not there yet, or a node does not answer).
   */
  long publishedCount(String topic) {
    HttpClient http = HttpClient.newHttpClient();
    long sum = 0;
    for (int i = 0; i < SIZE; i++) {
      if (!alive(i)) {
        continue;
      }
      try {
        String body = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metrics[i] + "/metrics"))
            .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()).body();
        for (String line : body.split("\n")) {
          if (line.startsWith("futureq_published_total{") && line.contains("topic=\"" + topic + "\"")) {
            sum += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
          }
        }
      } catch (IOException e) {
        // not serving: counts nothing
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return sum;
      }
    }
    return sum;
  }

  String address(int i) {
    return "127.0.0.1:" + grpc[i];
  }

  boolean alive(int i) {
    return processes[i] != null && processes[i].isAlive();
  }

  Path logFile(int i) {
    return dir.resolve("node-" + (i + 1) + (starts[i] > 1 ? "-" + starts[i] : "") + ".log");
  }

  String log(int i) {
    try {
      return Files.readString(logFile(i));
    } catch (IOException e) {
      return e.toString();
    }
  }

  @Override
  public void close() throws InterruptedException {
    for (Process p : processes) {
      if (p != null) {
        p.destroyForcibly();
      }
    }
    for (Process p : processes) {
      if (p != null) {
        p.waitFor(30, TimeUnit.SECONDS);
      }
    }
  }
}
