package io.futureq.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.futureq.client.FutureQClient;
import io.futureq.client.FutureQProducer;
import io.futureq.client.OutgoingMessage;
import io.futureq.client.ProducerOptions;
import io.futureq.testing.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console in a three-node cluster: every node's timeline counts what was published through another node (each
 * replica keeps its own counts), a reschedule through one node's console moves the message on the others' timelines,
 * and the overview names the members and each log shard's Raft leader (three shards, as conf/cluster-node*.conf).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ConsoleClusterE2ETest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http = HttpClient.newHttpClient();

  @TempDir
  Path dir;

  @Test
  void everyNodeAnswersTheTimelineAndARescheduleThroughOneMovesTheMessageOnAll() throws Exception {
    try (ClusterNodes cluster = new ClusterNodes(dir, 3, Map.of("futureq.console.enabled", true,
        "futureq.cluster.log-shards", 3), false)) {
      cluster.startAll();
      cluster.awaitAllReady(Duration.ofSeconds(90));
      long due = (System.currentTimeMillis() / 1000 + 40) * 1000;
      try (FutureQClient client = FutureQClient.builder().target(cluster.target(0)).discoveryInterval(Duration.ZERO)
          .build()) {
        FutureQProducer producer = client.producer(ProducerOptions.defaults());
        for (String key : new String[] {"a", "b", "c"}) {
          producer.send(OutgoingMessage.to("spread").payload(key).key(key).at(Instant.ofEpochMilli(due)).build())
              .get(20, TimeUnit.SECONDS);
        }
      }
      for (int i = 0; i < 3; i++) {
        int node = i;
        Await.until("node " + (i + 1) + "'s timeline counts the 3 messages in their second", Duration.ofSeconds(30),
            () -> countAt(cluster, node, due) == 3);
      }
      JsonNode moved = JSON.readTree(send(cluster, 1, "POST", "/api/topics/spread/reschedule",
          "{\"key\": \"b\", \"atMs\": " + (due + 10_000) + "}").body());
      assertEquals(due + 10_000, moved.get("dueMs").asLong(), moved.toString());
      for (int i = 0; i < 3; i++) {
        int node = i;
        Await.until("node " + (i + 1) + "'s timeline shows b moved 10 s on", Duration.ofSeconds(30),
            () -> countAt(cluster, node, due) == 2 && countAt(cluster, node, due + 10_000) == 1);
      }
      JsonNode overview = JSON.readTree(send(cluster, 2, "GET", "/api/overview", null).body());
      assertEquals(3, overview.get("members").size());
      assertEquals(3, overview.get("totals").get("pending").asLong());
      assertEquals(true, overview.get("raft").get("leaderId").asText().startsWith("node-"), overview.toString());
      JsonNode shards = overview.get("raft").get("logShards");
      assertEquals(3, shards.size(), overview.toString());
      for (int shard = 0; shard < 3; shard++) {
        assertEquals(shard, shards.get(shard).get("shard").asInt(), overview.toString());
        assertEquals(true, shards.get(shard).get("leaderId").asText().startsWith("node-"), overview.toString());
      }
    }
  }

  private long countAt(ClusterNodes cluster, int node, long ms) throws Exception {
    HttpResponse<String> r = send(cluster, node, "GET", "/api/timeline?span=minute&topic=spread", null);
    if (r.statusCode() != 200) {
      return -1; // the replica may not know the topic yet
    }
    JsonNode t = JSON.readTree(r.body());
    int index = (int) ((ms - t.get("fromMs").asLong()) / t.get("stepMs").asLong());
    JsonNode counts = t.get("series").get(0).get("counts");
    return index < 0 || index >= counts.size() ? -1 : counts.get(index).asLong();
  }

  private HttpResponse<String> send(ClusterNodes cluster, int node, String method, String path, String body)
      throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cluster.consolePorts[node] + path))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
        .build(), HttpResponse.BodyHandlers.ofString());
  }
}
