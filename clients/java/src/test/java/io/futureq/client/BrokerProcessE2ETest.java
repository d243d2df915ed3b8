package io.futureq.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.grpc.Status;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * This artifact, with its own class path (OkHttp transport, no broker classes), against a broker in
 * its own process. The root build passes the broker's class path ({@code futureq.broker.classpath});
 * run alone, without it, these tests are skipped.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 180, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class BrokerProcessE2ETest {
  private Path dir;
  private List<String> command;
  private Process broker;
  private int port;

  @BeforeAll
  void startBroker(@TempDir Path dir) throws Exception {
    String classPath = System.getProperty("futureq.broker.classpath", "");
    assumeTrue(!classPath.isBlank(), "no futureq.broker.classpath: run through the root build (mvn -B verify)");
    this.dir = dir;
    port = freePort();
    Path conf = dir.resolve("broker.conf");
    Files.writeString(conf, String.join("\n",
        "futureq.storage.data-dir = \"" + dir.resolve("data") + "\"",
        "futureq.api.host = 127.0.0.1",
        "futureq.api.port = " + port,
        "futureq.management.host = 127.0.0.1",
        "futureq.management.port = " + freePort(),
        "futureq.metrics.enabled = false",
        "futureq.console.enabled = false",
        "futureq.cluster.remoting.port = 0",
        "futureq.group.in-flight-timeout = 2s"));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    command = List.of(java, "-Xmx512m", "-cp", classPath, "io.futureq.cli.FutureqCommand", "server", "--config",
        conf.toString());
    broker = launch();
    try (FutureQClient client = client()) {
      long deadline = System.currentTimeMillis() + 90_000;
      while (true) {
        try {
          client.clusterInfo().get(5, TimeUnit.SECONDS);
          return;
        } catch (ExecutionException e) {
          if (!broker.isAlive() || System.currentTimeMillis() > deadline) {
            throw new AssertionError("broker did not start: " + Files.readString(dir.resolve("broker.log")), e);
          }
          Thread.sleep(200);
        }
      }
    }
  }

  @AfterAll
  void stopBroker() throws Exception {
    if (broker != null && broker.isAlive()) {
      broker.destroy();
      if (!broker.waitFor(30, TimeUnit.SECONDS)) {
        broker.destroyForcibly().waitFor();
      }
    }
  }

  @Test
  void publishesAndDeliversTheLargestPayloadWithTheDuplicateFlag() throws Exception {
    byte[] payload = new byte[1 << 20]; // the broker's default max-payload-size
    for (int i = 0; i < payload.length; i++) {
      payload[i] = (byte) i;
    }
    try (FutureQClient client = client()) {
      FutureQProducer producer = client.producer(ProducerOptions.defaults());
      OutgoingMessage message = OutgoingMessage.to("process").payload(payload).key("big").header("h", "v")
          .delay(Duration.ofMillis(300)).build();
      SendResult sent = producer.send(message).get(30, TimeUnit.SECONDS);
      SendResult again = producer.send(message).get(30, TimeUnit.SECONDS);
      assertFalse(sent.duplicate());
      assertTrue(again.duplicate());
      assertEquals(sent.messageId(), again.messageId());

      LinkedBlockingQueue<ReceivedMessage> got = new LinkedBlockingQueue<>();
      client.subscribe("process", "g", got::add, ConsumerOptions.defaults());
      ReceivedMessage m = got.poll(30, TimeUnit.SECONDS);
      assertEquals(sent.messageId(), m.messageId());
      assertArrayEquals(payload, m.payload());
      assertEquals("v", m.headers().get("h"));
      assertEquals(null, got.poll(3, TimeUnit.SECONDS), "auto-acked, and the duplicate was never stored");
    }
  }

  @Test
  void pullsCancelsAndReadsStats() throws Exception {
    try (FutureQClient client = client()) {
      FutureQProducer producer = client.producer(ProducerOptions.defaults());
      producer.send(OutgoingMessage.to("pulled").payload("now").build()).get(30, TimeUnit.SECONDS);
      producer.send(OutgoingMessage.to("pulled").payload("later").key("later").delay(Duration.ofHours(1)).build())
          .get(30, TimeUnit.SECONDS);
      assertEquals(2, client.topicStats("pulled").get(30, TimeUnit.SECONDS).getPending());
      assertTrue(client.cancelByKey("pulled", "later").get(30, TimeUnit.SECONDS).getExisted());

      FutureQConsumer puller = client.subscribe("pulled", "g", ConsumerOptions.defaults());
      List<ReceivedMessage> got = new ArrayList<>();
      for (int i = 0; i < 100 && got.isEmpty(); i++) {
        got.addAll(puller.receive(10, Duration.ofMillis(300)));
      }
      assertEquals(List.of("now"), got.stream().map(m -> new String(m.payload())).toList());
      got.get(0).ack();
      assertEquals(List.of(), puller.receive(10, Duration.ofSeconds(3)), "acked, and the cancelled one is gone");
    }
  }

  /** Kills the broker and starts it again on the same port and data, so the other tests may run after it. */
  @Test
  void sendFailsAfterTheDeliveryTimeoutOnceTheBrokerIsKilled() throws Exception {
    try (FutureQClient client = client()) {
      FutureQProducer producer = client.producer(ProducerOptions.defaults()
          .withDeliveryTimeout(Duration.ofSeconds(2)));
      producer.send(OutgoingMessage.to("killed").payload("before").build()).get(30, TimeUnit.SECONDS);
      stopAndRestartAfter(() -> {
        CompletableFuture<SendResult> lost = producer.send(OutgoingMessage.to("killed").payload("after").build());
        ExecutionException e = assertThrows(ExecutionException.class, () -> lost.get(60, TimeUnit.SECONDS));
        assertEquals(Status.Code.DEADLINE_EXCEEDED, ((FutureQException) e.getCause()).code());
      });
      // The same producer reconnects to the restarted broker (same port and data); until it is up,
      // each send fails after its 2 s delivery timeout.
      long deadline = System.currentTimeMillis() + 90_000;
      while (true) {
        try {
          producer.send(OutgoingMessage.to("killed").payload("again").build()).get(60, TimeUnit.SECONDS);
          break;
        } catch (ExecutionException e) {
          assertEquals(Status.Code.DEADLINE_EXCEEDED, ((FutureQException) e.getCause()).code());
          assertTrue(System.currentTimeMillis() < deadline, "no ack from the restarted broker");
        }
      }
    }
  }

  private void stopAndRestartAfter(ThrowingRunnable whileDown) throws Exception {
    broker.destroyForcibly().waitFor();
    whileDown.run();
    broker = launch();
  }

  private Process launch() throws IOException {
    return new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("broker.log").toFile())).start();
  }

  private interface ThrowingRunnable {
    void run() throws Exception;
  }

  private FutureQClient client() {
    return FutureQClient.builder().target("127.0.0.1:" + port).build();
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
