package io.futureq.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.client.ConsumerOptions;
import io.futureq.client.FutureQClient;
import io.futureq.client.FutureQProducer;
import io.futureq.client.OutgoingMessage;
import io.futureq.client.ProducerOptions;
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
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Three brokers as real processes started through bin/futureq; the Raft leader is killed with SIGKILL. */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ClusterProcessE2ETest {
  @TempDir
  Path dir;

  @Test
  void killingTheLeaderProcessLosesNoMessageAckedAtQuorum() throws Exception {
    int[] grpc = new int[3];
    int[] management = new int[3];
    int[] raft = new int[3];
    int[] ports = ClusterNodes.distinctFreePorts(9);
    for (int i = 0; i < 3; i++) {
      grpc[i] = ports[3 * i];
      management[i] = ports[3 * i + 1];
      raft[i] = ports[3 * i + 2];
    }
    List<Process> processes = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        processes.add(launch(i, grpc, management, raft));
      }
      for (int i = 0; i < 3; i++) {
        awaitReady(processes.get(i), management[i], i);
      }
      int leader;
      try (FutureQClient admin = FutureQClient.builder().target("127.0.0.1:" + grpc[0]).build()) {
        leader = Integer.parseInt(admin.clusterInfo().get(10, TimeUnit.SECONDS).getRaft().getLeaderId()
            .substring("node-".length())) - 1;
      }
      int other = (leader + 1) % 3;
      Set<String> acked = ConcurrentHashMap.newKeySet();
      Set<String> received = ConcurrentHashMap.newKeySet();
      try (FutureQClient client = FutureQClient.builder().target("127.0.0.1:" + grpc[other]).build()) {
        client.subscribe("jobs", "workers", m -> received.add(new String(m.payload())), ConsumerOptions.defaults());
        FutureQProducer producer = client.producer(ProducerOptions.defaults().withLinger(Duration.ofMillis(1)));
        long killedAt = 0;
        long resumedAfter = -1;
        for (int i = 0; i < 150; i++) {
          if (i == 50) {
            processes.get(leader).destroyForcibly();
            killedAt = System.currentTimeMillis();
          }
          String id = "job-" + i;
          try {
            producer.send(OutgoingMessage.to("jobs").payload(id).key(id).delay(Duration.ofMillis(300)).build())
                .get(30, TimeUnit.SECONDS);
            acked.add(id);
            if (i >= 50 && resumedAfter < 0) {
              resumedAfter = System.currentTimeMillis() - killedAt;
              System.out.println("publishing resumed " + resumedAfter + " ms after kill -9 of the leader");
            }
          } catch (ExecutionException e) {
            // unacknowledged: no promise made
          }
        }
        long deadline = System.currentTimeMillis() + 60_000;
        while (!received.containsAll(acked) && System.currentTimeMillis() < deadline) {
          Thread.sleep(200);
        }
        Set<String> missing = new TreeSet<>(acked);
        missing.removeAll(received);
        assertTrue(missing.isEmpty(), "acked at QUORUM but never delivered: " + missing);
        assertTrue(acked.size() >= 140, "only " + acked.size() + " of 150 publishes were acked");
      }
    } finally {
      processes.forEach(Process::destroyForcibly);
      for (Process p : processes) {
        p.waitFor(30, TimeUnit.SECONDS);
      }
    }
  }

  private Process launch(int i, int[] grpc, int[] management, int[] raft) throws IOException {
    Path conf = dir.resolve("node-" + (i + 1) + ".conf");
    StringBuilder peers = new StringBuilder();
    StringBuilder contacts = new StringBuilder();
    for (int j = 0; j < 3; j++) {
      peers.append("node-").append(j + 1).append(" = \"127.0.0.1:").append(raft[j]).append("\"\n");
      contacts.append(j == 0 ? "" : ", ").append("\"127.0.0.1:").append(management[j]).append("\"");
    }
    Files.writeString(conf, String.join("\n",
        "futureq.node-id = node-" + (i + 1),
        "futureq.api { host = 127.0.0.1, port = " + grpc[i] + " }",
        "futureq.metrics.enabled = false",
        "futureq.management.port = " + management[i],
        "futureq.storage.data-dir = \"" + dir.resolve("node-" + (i + 1) + "/store") + "\"",
        "futureq.raft.storage-dir = \"" + dir.resolve("node-" + (i + 1) + "/raft") + "\"",
        "futureq.raft.peers {\n" + peers + "}",
        "futureq.cluster { enabled = true, remoting.port = 0 }",
        "futureq.cluster.discovery.contact-points = [" + contacts + "]",
        "pekko.management.cluster.bootstrap.contact-point-discovery.stable-margin = 1s",
        "pekko.management.cluster.bootstrap.contact-point-discovery.interval = 500ms"));
    Path launcher = Path.of(System.getProperty("user.dir"), "bin", "futureq");
    ProcessBuilder builder = new ProcessBuilder(launcher.toString(), "server", "--config", conf.toString())
        .redirectErrorStream(true).redirectOutput(dir.resolve("node-" + (i + 1) + ".log").toFile());
    builder.environment().put("FUTUREQ_CLASSPATH", System.getProperty("java.class.path"));
    builder.environment().put("JAVA_OPTS", "-Xmx384m");
    return builder.start();
  }

  private void awaitReady(Process process, int managementPort, int i) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    long deadline = System.currentTimeMillis() + 120_000;
    while (System.currentTimeMillis() < deadline) {
      assertTrue(process.isAlive(), () -> "node-" + (i + 1) + " exited: " + log(i));
      try {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort
            + "/ready")).timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      Thread.sleep(300);
    }
    throw new AssertionError("node-" + (i + 1) + " not ready: " + log(i));
  }

  private String log(int i) {
    try {
      return Files.readString(dir.resolve("node-" + (i + 1) + ".log"));
    } catch (IOException e) {
      return e.toString();
    }
  }
}
