package io.futureq.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.futureq.client.FutureQClient;
import io.futureq.client.FutureQProducer;
import io.futureq.client.OutgoingMessage;
import io.futureq.client.ProducerOptions;
import io.futureq.config.StorageEngine;
import io.futureq.security.TokenHash;
import io.futureq.tls.TestCertificates;
import io.futureq.tls.TestCertificates.Issued;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console's JSON API (docs/console.md) over HTTPS with the API's certificate and tokens, against a real broker:
 * what a caller without a token gets, the timeline's counts and its event stream, bad parameters, and the actions.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConsoleApiE2ETest {
  private static final String ADMIN = TokenHash.newToken();
  private static final ObjectMapper JSON = new ObjectMapper();

  private TestBroker broker;
  private FutureQClient client;
  private FutureQProducer producer;
  private HttpClient https;
  private String base;

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    Issued ca = TestCertificates.authority("console-ca");
    Issued server = TestCertificates.leaf(ca, "broker", TestCertificates.ec());
    server.write(dir.resolve("server.pem"), dir.resolve("server.key"));
    Path access = Files.writeString(dir.resolve("access"), "token root " + TokenHash.of(ADMIN)
        + "\ngrant root admin *\ngrant root produce *\n");
    int port = TestPorts.free();
    base = "127.0.0.1:" + port;
    broker = TestBroker.start(StorageEngine.MEMORY, dir.resolve("data"), Map.of("futureq.console.enabled", true,
        "futureq.console.port", port, "futureq.security.auth.enabled", true,
        "futureq.security.auth.access-file", access.toString(), "futureq.security.tls.enabled", true,
        "futureq.security.tls.cert-file", dir.resolve("server.pem").toString(),
        "futureq.security.tls.key-file", dir.resolve("server.key").toString()));
    TestCertificates.writePem(dir.resolve("ca.pem"), ca.certificate());
    client = FutureQClient.builder().target("127.0.0.1:" + broker.node.grpcPort()).discoveryInterval(Duration.ZERO)
        .trustedCertificates(dir.resolve("ca.pem")).token(ADMIN).build();
    producer = client.producer(ProducerOptions.defaults());
    KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
    trust.load(null, null);
    trust.setCertificateEntry("ca", ca.certificate());
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, tmf.getTrustManagers(), null);
    https = HttpClient.newBuilder().sslContext(context).connectTimeout(Duration.ofSeconds(5)).build();
  }

  @AfterAll
  void stop() {
    if (client != null) {
      client.close();
    }
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void servesThePageOverHttpsAndRefusesApiCallsWithoutAToken() throws Exception {
    HttpResponse<String> page = send("GET", "/", null, null);
    assertEquals(200, page.statusCode());
    assertTrue(page.body().contains("<title>FutureQ console</title>"));
    assertEquals(true, json(send("GET", "/api/auth", null, null)).get("authentication").asBoolean());
    HttpResponse<String> refused = send("GET", "/api/topics", null, null);
    assertEquals(401, refused.statusCode());
    assertEquals("UNAUTHENTICATED", error(refused).get("code").asText());
    assertEquals(401, send("GET", "/api/topics", "not-a-token", null).statusCode());
    assertEquals("root", json(send("GET", "/api/session", ADMIN, null)).get("principal").asText());
    HttpClient plain = HttpClient.newHttpClient();
    assertThrows(IOException.class, () -> plain.send(HttpRequest.newBuilder(URI.create("http://" + base + "/"))
        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()), "no plaintext beside TLS");
  }

  @Test
  void theTimelineCountsMessagesPerSecondAndStreamsThemAsServerSentEvents() throws Exception {
    String topic = "api-timeline";
    long due = (System.currentTimeMillis() / 1000 + 30) * 1000 + 500;
    publish(at(topic, due), at(topic, due), at(topic, due), at(topic, due + 2_000));
    JsonNode minute = json(send("GET", "/api/timeline?span=minute&topic=" + topic, ADMIN, null));
    long from = minute.get("fromMs").asLong();
    assertEquals(1000, minute.get("stepMs").asLong());
    assertEquals(60, minute.get("points").asInt());
    JsonNode counts = minute.get("series").get(0).get("counts");
    assertEquals(3, counts.get((int) ((due / 1000 * 1000 - from) / 1000)).asLong());
    assertEquals(1, counts.get((int) ((due / 1000 * 1000 + 2_000 - from) / 1000)).asLong());
    assertEquals(4, minute.get("pending").asLong());
    assertEquals(0, minute.get("overdue").asLong());

    HttpResponse<Stream<String>> stream = https.send(httpRequest("GET", "/api/timeline/stream?span=hour&topic=" + topic,
        ADMIN, null), HttpResponse.BodyHandlers.ofLines());
    assertEquals(200, stream.statusCode());
    assertTrue(stream.headers().firstValue("content-type").orElse("").startsWith("text/event-stream"));
    Iterator<String> lines = stream.body().iterator();
    assertEquals("event: timeline", lines.next());
    JsonNode event = JSON.readTree(lines.next().substring("data: ".length()));
    assertEquals(60_000, event.get("stepMs").asLong(), "the next hour, a minute a bar");
    assertEquals(4, event.get("series").get(0).get("pending").asLong());
    assertEquals("", lines.next());
    assertEquals("event: timeline", lines.next(), "the next second's");
    stream.body().close();
  }

  @Test
  void badParametersAreNamedAndUnknownTopicsAreNotFound() throws Exception {
    HttpResponse<String> span = send("GET", "/api/timeline?span=year", ADMIN, null);
    assertEquals(400, span.statusCode());
    assertTrue(error(span).get("error").asText().startsWith("span:"), span.body());
    assertEquals(400, send("GET", "/api/timeline?from=20000&to=5000", ADMIN, null).statusCode());
    assertEquals(404, send("GET", "/api/timeline?span=minute&topic=never-used", ADMIN, null).statusCode());
    assertEquals(404, send("GET", "/api/topics/never-used", ADMIN, null).statusCode());
    HttpResponse<String> noTarget = send("POST", "/api/topics/never-used/reschedule", ADMIN, "{}");
    assertEquals(400, noTarget.statusCode());
    assertTrue(error(noTarget).get("error").asText().startsWith("id or key"), noTarget.body());
    assertEquals(404, send("GET", "/api/nothing-here", ADMIN, null).statusCode());
  }

  @Test
  void actionsAnswerAsTheApiCallsOfTheSameName() throws Exception {
    String topic = "api-actions";
    publish(later(topic, "one").key("k1"), later(topic, "two").key("k2"), later(topic, "three"));
    JsonNode moved = json(send("POST", "/api/topics/" + topic + "/reschedule", ADMIN,
        "{\"key\": \"k1\", \"delayMs\": 120000}"));
    assertTrue(Math.abs(moved.get("dueMs").asLong() - System.currentTimeMillis() - 120_000) < 10_000, moved.toString());
    JsonNode read = json(send("GET", "/api/topics/" + topic + "/messages?key=k1", ADMIN, null));
    assertEquals("one", read.get("payloadText").asText());
    assertEquals(moved.get("id").asText(), read.get("id").asText());
    JsonNode page = json(send("GET", "/api/topics/" + topic + "/messages?payload=true&pageSize=2", ADMIN, null));
    assertEquals("k1", page.get("messages").get(0).get("key").asText(), "in due order: the moved one first");
    assertEquals(2, page.get("messages").size());
    assertTrue(!page.get("nextPageToken").asText().isEmpty());
    assertEquals(true, json(send("POST", "/api/topics/" + topic + "/cancel", ADMIN, "{\"key\": \"k2\"}"))
        .get("existed").asBoolean());
    assertEquals(2, json(send("POST", "/api/topics/" + topic + "/purge", ADMIN, null)).get("removed").asLong());
    assertEquals(200, send("DELETE", "/api/topics/" + topic, ADMIN, null).statusCode());
    assertEquals(404, send("GET", "/api/topics/" + topic, ADMIN, null).statusCode());
  }

  private static OutgoingMessage.Builder at(String topic, long dueMs) {
    return OutgoingMessage.to(topic).payload("m").at(Instant.ofEpochMilli(dueMs));
  }

  private static OutgoingMessage.Builder later(String topic, String payload) {
    return OutgoingMessage.to(topic).payload(payload).delay(Duration.ofHours(1));
  }

  private void publish(OutgoingMessage.Builder... messages) throws Exception {
    CompletableFuture<?>[] sent = new CompletableFuture<?>[messages.length];
    for (int i = 0; i < messages.length; i++) {
      sent[i] = producer.send(messages[i].build());
    }
    CompletableFuture.allOf(sent).get(30, TimeUnit.SECONDS);
  }

  private HttpRequest httpRequest(String method, String path, String token, String body) {
    HttpRequest.Builder r = HttpRequest.newBuilder(URI.create("https://" + base + path))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      r.header("Authorization", "Bearer " + token);
    }
    return r.build();
  }

  private HttpResponse<String> send(String method, String path, String token, String body) throws Exception {
    return https.send(httpRequest(method, path, token, body), HttpResponse.BodyHandlers.ofString());
  }

  /** The body of an answer that succeeded. */
  private static JsonNode json(HttpResponse<String> response) throws IOException {
    assertTrue(response.statusCode() < 300, response.statusCode() + " " + response.body());
    return JSON.readTree(response.body());
  }

  /** The body of a refusal. */
  private static JsonNode error(HttpResponse<String> response) throws IOException {
    return JSON.readTree(response.body());
  }
}
