package io.futureq.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.e2e.TestBroker;
import io.futureq.e2e.TestPorts;
import io.futureq.testing.Await;
import io.grpc.Status;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The Java client against a real broker on loopback. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClientE2ETest {
  @TempDir
  Path dir;

  /** A real broker on a fixed gRPC port, so a restarted one is found at the same address. */
  private static TestBroker startBroker(Path data, int grpcPort) {
    return TestBroker.start(data, Map.of("futureq.api.port", grpcPort, "futureq.group.in-flight-timeout", "3s"));
  }

  @Test
  void sendsConsumesAcksNacksAndCancels() throws Exception {
    int port = TestPorts.free();
    try (TestBroker node = startBroker(dir.resolve("data"), port);
        FutureQClient client = FutureQClient.builder().target("127.0.0.1:" + port).build()) {
      FutureQProducer producer = client.producer(ProducerOptions.defaults());
      String id = producer.send(OutgoingMessage.to("client").payload("hello").delay(Duration.ofMillis(200))
          .header("h", "v").key("k1").build()).get(10, TimeUnit.SECONDS).messageId();
      producer.send(OutgoingMessage.to("client").payload("cancel-me").delay(Duration.ofMinutes(5)).key("k2").build())
          .get(10, TimeUnit.SECONDS);
      assertTrue(producer.cancel("client", "k2").get(10, TimeUnit.SECONDS));
      assertFalse(producer.cancel("client", "k2").get(10, TimeUnit.SECONDS));

      LinkedBlockingQueue<ReceivedMessage> got = new LinkedBlockingQueue<>();
      client.subscribe("client", "g", got::add, ConsumerOptions.defaults().withManualAck());
      ReceivedMessage first = got.poll(10, TimeUnit.SECONDS);
      assertEquals(id, first.messageId());
      assertEquals("hello", new String(first.payload()));
      assertEquals("v", first.headers().get("h"));
      assertEquals("k1", first.key());
      assertTrue(first.receivedAtUnixMs() >= first.dueAtUnixMs());
      first.nack(Duration.ofMillis(100));
      ReceivedMessage second = got.poll(10, TimeUnit.SECONDS);
      assertEquals(id, second.messageId());
      assertEquals(2, second.attempt());
      second.ack();
      assertEquals(null, got.poll(1, TimeUnit.SECONDS), "the cancelled message and the acked one stay gone");
    }
  }

  @Test
  void autoAckNacksWhenTheHandlerThrows() throws Exception {
    int port = TestPorts.free();
    try (TestBroker node = startBroker(dir.resolve("data"), port);
        FutureQClient client = FutureQClient.builder().target("127.0.0.1:" + port).build()) {
      client.producer(ProducerOptions.defaults()).send(OutgoingMessage.to("auto").payload("p").build())
          .get(10, TimeUnit.SECONDS);
      LinkedBlockingQueue<Integer> attempts = new LinkedBlockingQueue<>();
      client.subscribe("auto", "g", m -> {
        attempts.add(m.attempt());
        if (m.attempt() == 1) {
          throw new IllegalStateException("first attempt fails");
        }
      }, new ConsumerOptions(10, true, Duration.ofMillis(50), Duration.ofMillis(100), 1));
      assertEquals(1, attempts.poll(10, TimeUnit.SECONDS));
      assertEquals(2, attempts.poll(10, TimeUnit.SECONDS));
      assertEquals(null, attempts.poll(1, TimeUnit.SECONDS));
    }
  }

  @Test
  void reconnectsAfterTheBrokerRestartsAndLosesNothing() throws Exception {
    int port = TestPorts.free();
    Path data = dir.resolve("data");
    TestBroker node = startBroker(data, port);
    try (FutureQClient client = FutureQClient.builder().target("127.0.0.1:" + port).build()) {
      Set<String> received = ConcurrentHashMap.newKeySet();
      client.subscribe("restart", "g", m -> received.add(new String(m.payload())), ConsumerOptions.defaults());
      FutureQProducer producer = client.producer(ProducerOptions.defaults().withLinger(Duration.ofMillis(1)));
      for (int i = 0; i < 50; i++) {
        producer.send(OutgoingMessage.to("restart").payload("before-" + i).key("before-" + i).build())
            .get(10, TimeUnit.SECONDS);
      }
      node.close();
      List<CompletableFuture<SendResult>> during = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        during.add(producer.send(OutgoingMessage.to("restart").payload("during-" + i).key("during-" + i).build()));
      }
      Thread.sleep(500); // a sleep: the sends are made and retried while the broker is down for a while
      node = startBroker(data, port);
      CompletableFuture.allOf(during.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
      Await.until("the 100 messages delivered", Duration.ofSeconds(30), () -> received.size() >= 100,
          () -> "received " + received.size());
      assertEquals(100, received.size(), "received " + received.size());
    } finally {
      node.close();
    }
  }

  @Test
  void sendBlocksThenFailsWhenTooManyMessagesAreUnacknowledged() throws Exception {
    int port = TestPorts.free();
    try (FutureQClient client = FutureQClient.builder().target("127.0.0.1:" + port)
        .requestTimeout(Duration.ofSeconds(1)).build()) {
      FutureQProducer producer = client.producer(ProducerOptions.defaults().withMaxOutstandingMessages(5)
          .withBlockTimeout(Duration.ofMillis(300)));
      List<CompletableFuture<SendResult>> sent = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        sent.add(producer.send(OutgoingMessage.to("nobody").payload("x").build()));
      }
      assertEquals(5, producer.outstanding());
      long start = System.currentTimeMillis();
      CompletableFuture<SendResult> refused = producer.send(OutgoingMessage.to("nobody").payload("x").build());
      assertTrue(System.currentTimeMillis() - start >= 250, "send should block before refusing");
      ExecutionException e = assertThrows(ExecutionException.class, () -> refused.get(1, TimeUnit.SECONDS));
      assertEquals(Status.Code.RESOURCE_EXHAUSTED, ((FutureQException) e.getCause()).code());
      sent.forEach(f -> assertFalse(f.isDone()));
    }
  }
}
