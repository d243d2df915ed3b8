package io.futureq.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.testing.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** What an operator (or a Kubernetes probe) reads on GET /ready of a node that cannot serve yet. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReadinessE2ETest {
  @TempDir
  Path dir;

  @Test
  void aClusterNodeWithoutARaftMajoritySaysSoOnReady() throws Exception {
    int management = TestPorts.free();
    // One of three Raft peers: it becomes an Up cluster member of its own, but never has a Raft leader.
    String config = String.join("\n",
        "futureq.cluster.enabled = true",
        "futureq.cluster.discovery.contact-points = [\"127.0.0.1:" + management + "\"]",
        "futureq.cluster.discovery.required-contact-points = 1",
        "futureq.raft.storage-dir = \"" + dir.resolve("raft") + "\"",
        "futureq.raft.peers { node-1 = \"127.0.0.1:" + TestPorts.free() + "\", node-2 = \"127.0.0.1:"
            + TestPorts.free() + "\", node-3 = \"127.0.0.1:" + TestPorts.free() + "\" }");
    try (BrokerProcess broker = BrokerProcess.startWithManagementPort(dir, dir.resolve("data"), management,
        config)) {
      HttpClient http = HttpClient.newHttpClient();
      // until management is bound, a refused connection is "not yet"; any answer but 500 fails at once
      String last = Await.until("/ready to name Raft", Duration.ofSeconds(90), () -> {
        HttpResponse<String> ready = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + management
            + "/ready")).timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(500, ready.statusCode(), ready.body());
        return ready.body();
      }, body -> body.contains("Raft"));
      assertTrue(last.contains("not ready: ") && last.contains("Raft"), "/ready answered: " + last + "\n"
          + broker.output());
    }
  }
}
