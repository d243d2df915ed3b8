package io.futureq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.client.FutureQClient;
import io.futureq.client.OutgoingMessage;
import io.futureq.client.ProducerOptions;
import io.futureq.e2e.BrokerExtension;
import io.futureq.testing.Await;
import java.io.ByteArrayInputStream;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code futureq publish} and {@code futureq consume} against a real broker. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PublishConsumeCommandTest {
  @RegisterExtension
  static final BrokerExtension broker = BrokerExtension.withDefaults();
  static String server;

  @BeforeAll
  static void start() {
    server = broker.server();
  }

  @Test
  void consumeJsonPrintsWhatPublishPrintedWithPayloadsAndAcksIt() throws Exception {
    String topic = "cli-json";
    Cli.Result first = Cli.run("publish", "--server", server, "--topic", topic, "--key", "k1", "--header", "a=1",
        "--header", "b=two words", "hello \"world\"");
    Cli.Result second = Cli.run("publish", "--server", server, "--topic", topic, "--delay", "200ms", "second");
    assertEquals(0, first.exit(), first.toString());
    assertEquals(0, second.exit(), second.toString());
    String helloId = first.out().trim();
    String secondId = second.out().trim();
    assertEquals(1, first.lines().size(), first.toString());
    String binaryId;
    try (FutureQClient client = FutureQClient.builder().target(server).build()) {
      binaryId = client.producer(ProducerOptions.defaults()).send(OutgoingMessage.to(topic)
          .payload(new byte[] {(byte) 0xff, 0, 'A'}).build()).get(10, TimeUnit.SECONDS).messageId();
    }

    Cli.Result consumed = Cli.run("consume", "--server", server, "--topic", topic, "--group", "g", "--count", "3",
        "--json");

    assertEquals(0, consumed.exit(), consumed.toString());
    assertEquals("", consumed.err());
    List<String> lines = consumed.lines();
    assertEquals(3, lines.size(), consumed.toString());
    String hello = line(lines, helloId);
    assertTrue(hello.startsWith("{\"message_id\":\"" + helloId + "\",\"topic\":\"cli-json\",\"group\":\"g\","
        + "\"key\":\"k1\",\"attempt\":1,\"due_at_unix_ms\":"), hello);
    assertTrue(hello.contains(",\"received_at_unix_ms\":"), hello);
    assertTrue(hello.contains(",\"headers\":{"), hello);
    assertTrue(hello.contains("\"a\":\"1\""), hello);
    assertTrue(hello.contains("\"b\":\"two words\""), hello);
    assertTrue(hello.endsWith(",\"payload\":\"hello \\\"world\\\"\"}"), hello);
    assertTrue(line(lines, secondId).endsWith("\"headers\":{},\"payload\":\"second\"}"), consumed.toString());
    assertTrue(line(lines, binaryId).endsWith(",\"payload_b64\":\"/wBB\"}"), consumed.toString());
    awaitPendingZero(topic);
  }

  @Test
  void publishSendsOneMessagePerLineOfStandardInput() {
    String topic = "cli-stdin";
    Cli.Result published = Cli.runWithInput("one\ntwo\nthree é\n", "publish", "--server", server, "--topic", topic);
    assertEquals(0, published.exit(), published.toString());
    List<String> ids = published.lines();
    assertEquals(3, ids.size(), published.toString());
    assertEquals(3, Set.copyOf(ids).size(), published.toString());

    Cli.Result consumed = Cli.run("consume", "--server", server, "--topic", topic, "--group", "g", "--count", "3");

    assertEquals(0, consumed.exit(), consumed.toString());
    List<String> payloads = new ArrayList<>();
    for (String line : consumed.lines()) {
      String id = line.substring(0, line.indexOf(' '));
      assertTrue(ids.contains(id), line);
      assertTrue(line.matches("\\S+ attempt=1 key= due=\\d{4}-\\d\\d-\\d\\dT\\S+Z payload=.*"), line);
      payloads.add(line.substring(line.indexOf("payload=") + "payload=".length()));
    }
    assertEquals(Set.of("one", "two", "three é"), Set.copyOf(payloads));
  }

  @Test
  void consumePrintsAMultiLinePayloadOnOneLineEscaped() {
    String topic = "cli-multiline";
    Cli.Result published = Cli.run("publish", "--server", server, "--topic", topic, "first line\nsecond\tline \\ end");
    assertEquals(0, published.exit(), published.toString());

    Cli.Result consumed = Cli.run("consume", "--server", server, "--topic", topic, "--group", "g", "--count", "1");

    assertEquals(0, consumed.exit(), consumed.toString());
    assertEquals(1, consumed.lines().size(), consumed.toString());
    assertTrue(consumed.out().contains("payload=first line\\nsecond\\tline \\\\ end"), consumed.toString());
  }

  /** It said "UNAVAILABLE: io exception", and Netty's pipeline on a second line. */
  @Test
  void tlsToAPlaintextBrokerSaysSoInOneLine() {
    Cli.Result r = Cli.run("stats", "--server", server, "--tls");
    assertEquals(1, r.exit(), r.toString());
    assertEquals(1, r.err().lines().count(), r.toString());
    assertTrue(r.err().contains("TLS to a broker that answered in plaintext"), r.toString());
  }

  @Test
  void publishRefusesKeyForSeveralLinesOfStandardInput() {
    Cli.Result r = Cli.runWithInput("a\nb\n", "publish", "--server", server, "--topic", "cli-keys", "--key", "k");
    assertEquals(2, r.exit(), r.toString());
    assertTrue(r.err().contains("--key names one message, but standard input has 2 lines"), r.toString());
  }

  @Test
  void publishAcceptsKeyForOneLineOfStandardInputAndReturnsTheSameIdAgain() {
    String[] args = {"publish", "--server", server, "--topic", "cli-key-once", "--key", "k", "--at",
        Instant.now().plus(Duration.ofDays(1)).truncatedTo(ChronoUnit.SECONDS).toString()};
    Cli.Result first = Cli.runWithInput("only\n", args);
    Cli.Result again = Cli.runWithInput("only\n", args);
    assertEquals(0, first.exit(), first.toString());
    assertEquals(first.out(), again.out());
  }

  @Test
  void publishReportsTheBrokersRejectionOnOneLine() {
    Cli.Result r = Cli.run("publish", "--server", server, "--topic", "bad topic!", "x");
    assertEquals(1, r.exit(), r.toString());
    assertEquals("", r.out());
    assertTrue(r.err().startsWith("futureq: INVALID_ARGUMENT: "), r.toString());
    assertTrue(r.err().contains("topic"), r.toString());
    assertEquals(1, r.err().lines().count(), r.toString());
  }

  @Test
  void publishRefusesStandardInputThatIsNotUtf8() {
    Cli.Result r = Cli.run(new ByteArrayInputStream(new byte[] {'o', 'k', '\n', (byte) 0xff, '\n'}), "publish",
        "--server", server, "--topic", "cli-binary");
    assertEquals(1, r.exit(), r.toString());
    assertEquals("futureq: standard input is not UTF-8 text\n", r.err());
  }

  @Test
  void consumeReportsARefusedSubscriptionOnOneLine() {
    Cli.Result r = Cli.run("consume", "--server", server, "--topic", "bad topic!", "--group", "g", "--count", "1");
    assertEquals(1, r.exit(), r.toString());
    assertTrue(r.err().startsWith("futureq: INVALID_ARGUMENT: init.topic"), r.toString());
    assertEquals(1, r.err().lines().count(), r.toString());
  }

  private static String line(List<String> lines, String id) {
    return lines.stream().filter(l -> l.contains("\"message_id\":\"" + id + "\"")).findFirst()
        .orElseThrow(() -> new AssertionError("no line for " + id + " in " + lines));
  }

  /** Acked by the only group, every message is deleted; a message consume printed but did not ack would stay. */
  private static void awaitPendingZero(String topic) {
    Await.until("nothing pending on " + topic, Duration.ofSeconds(10),
        () -> Cli.run("stats", "--server", server, "--topic", topic, "--json").out().lines()
            .collect(Collectors.joining()), stats -> stats.contains("\"pending\":0,"));
  }
}
