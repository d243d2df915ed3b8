package io.futureq.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
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
  private BrokerProcess broker;

  @BeforeAll
  void startBroker(@TempDir Path dir) throws Exception {
    assumeTrue(!BrokerProcess.classPath().isBlank(),
        "no futureq.broker.classpath: run through the root build (mvn -B verify)");
    broker = BrokerProcess.start(dir, List.of("futureq.group.in-flight-timeout = 2s"));
    broker.awaitReady(this::client);
  }

  @AfterAll
  void stopBroker() throws Exception {
    if (broker != null) {
      broker.close();
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

  @Test
  void failuresAreTheClientsOwnExceptionsCarryingTheStatusCode() throws Exception {
    try (FutureQClient client = client()) {
      ExecutionException missing = assertThrows(ExecutionException.class,
          () -> client.getMessageByKey("typed", "none", false).get(30, TimeUnit.SECONDS));
      NotFoundException notFound = assertInstanceOf(NotFoundException.class, missing.getCause());
      assertEquals(Status.Code.NOT_FOUND, notFound.code());
      ExecutionException badName = assertThrows(ExecutionException.class,
          () -> client.topicStats("no spaces allowed").get(30, TimeUnit.SECONDS));
      assertEquals(Status.Code.INVALID_ARGUMENT,
          assertInstanceOf(InvalidRequestException.class, badName.getCause()).code());
    }
  }

  @Test
  void interceptorsSeeEveryCallAndStreamInTheOrderAdded() throws Exception {
    Queue<String> seen = new ConcurrentLinkedQueue<>();
    try (FutureQClient client = FutureQClient.builder().target("127.0.0.1:" + broker.port())
        .discoveryInterval(Duration.ZERO).intercept(recording("outer", seen), recording("inner", seen)).build()) {
      client.listTopics().get(30, TimeUnit.SECONDS);
      client.producer(ProducerOptions.defaults()).send(OutgoingMessage.to("traced").payload("p").build())
          .get(30, TimeUnit.SECONDS);
      LinkedBlockingQueue<ReceivedMessage> got = new LinkedBlockingQueue<>();
      client.subscribe("traced", "g", got::add, ConsumerOptions.defaults());
      assertNotNull(got.poll(30, TimeUnit.SECONDS), "delivered");
    }
    assertEquals(List.of("outer futureq.v1.Admin/ListTopics", "inner futureq.v1.Admin/ListTopics",
        "outer futureq.v1.Producer/PublishStream", "inner futureq.v1.Producer/PublishStream",
        "outer futureq.v1.Consumer/Subscribe", "inner futureq.v1.Consumer/Subscribe"), List.copyOf(seen));
  }

  private static ClientInterceptor recording(String name, Queue<String> seen) {
    return new ClientInterceptor() {
      @Override
      public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        seen.add(name + " " + method.getFullMethodName());
        return next.newCall(method, options);
      }
    };
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
    broker.kill();
    whileDown.run();
    broker.launch();
  }

  private interface ThrowingRunnable {
    void run() throws Exception;
  }

  private FutureQClient client() {
    return FutureQClient.builder().target("127.0.0.1:" + broker.port()).build();
  }
}
