package io.futureq.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.e2e.TestBroker;
import io.futureq.testing.Await;
import io.grpc.Status;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the Java client promises its users, against one real broker on loopback (bound to the
 * wildcard address, as a default broker is), each test on topics of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClientApiE2ETest {
  private TestBroker broker;
  private FutureQClient client;

  @BeforeAll
  void start(@TempDir Path dir) {
    broker = TestBroker.start(dir.resolve("data"), Map.of("futureq.api.host", "0.0.0.0",
        "futureq.security.allow-insecure", true));
    client = FutureQClient.builder().target("127.0.0.1:" + broker.node.grpcPort()).build();
  }

  @AfterAll
  void stop() {
    client.close();
    broker.close();
  }

  @Test
  void sendSaysWhenItsKeyWasStillPending() throws Exception {
    FutureQProducer producer = client.producer(ProducerOptions.defaults());
    OutgoingMessage message = OutgoingMessage.to("dup").payload("p").key("order-7").delay(Duration.ofHours(1)).build();

    SendResult first = producer.send(message).get(10, TimeUnit.SECONDS);
    SendResult again = producer.send(message).get(10, TimeUnit.SECONDS);

    assertFalse(first.duplicate());
    assertTrue(again.duplicate());
    assertEquals(first.messageId(), again.messageId());
    assertTrue(producer.cancel("dup", "order-7").get(10, TimeUnit.SECONDS));
    SendResult afterCancel = producer.send(message).get(10, TimeUnit.SECONDS);
    assertFalse(afterCancel.duplicate(), "the key is free again once its message is gone");
    producer.close();
  }

  @Test
  void aRescheduledMessageIsDeliveredAtItsNewTimeAndADeletedGroupsConsumerStops() throws Exception {
    FutureQProducer producer = client.producer(ProducerOptions.defaults());
    List<String> got = Collections.synchronizedList(new ArrayList<>());
    FutureQConsumer consumer = client.subscribe("resched", "g", m -> got.add(m.messageId()),
        ConsumerOptions.defaults());
    consumer.subscribed().get(10, TimeUnit.SECONDS);
    SendResult sent = producer.send(OutgoingMessage.to("resched").payload("p").key("order-1")
        .delay(Duration.ofHours(1)).build()).get(10, TimeUnit.SECONDS);

    var moved = client.rescheduleByKey("resched", "order-1", Instant.EPOCH).get(10, TimeUnit.SECONDS);

    assertEquals(sent.messageId(), moved.getPreviousMessageId());
    Await.until("the rescheduled message delivered", Duration.ofSeconds(10), () -> !got.isEmpty());
    assertEquals(List.of(moved.getMessageId()), got, "delivered now under its new id");
    var missing = assertThrows(ExecutionException.class,
        () -> client.getMessageById("resched", sent.messageId(), false).get(10, TimeUnit.SECONDS));
    assertEquals(Status.Code.NOT_FOUND, ((FutureQException) missing.getCause()).code());

    assertEquals(0, client.deleteGroup("resched", "g").get(10, TimeUnit.SECONDS).getRemoved());
    var ended = assertThrows(ExecutionException.class,
        () -> consumer.terminated().get(10, TimeUnit.SECONDS));
    assertEquals(Status.Code.NOT_FOUND, ((FutureQException) ended.getCause()).code(), "not resubscribed");
    producer.close();
  }

  @Test
  void receivePullsDeliveriesThatTheCallerAcksOrNacks() throws Exception {
    FutureQConsumer puller = client.subscribe("pull", "g", ConsumerOptions.defaults().withMaxInFlight(10));
    puller.subscribed().get(10, TimeUnit.SECONDS);
    assertEquals(List.of(), puller.receive(10, Duration.ofMillis(200)), "nothing is due yet");
    FutureQProducer producer = client.producer(ProducerOptions.defaults());
    Instant due = Instant.now();
    for (int i = 0; i < 5; i++) {
      producer.send(OutgoingMessage.to("pull").payload("m" + i).at(due).build());
    }
    producer.flush();

    List<ReceivedMessage> got = new ArrayList<>();
    while (got.size() < 5) {
      List<ReceivedMessage> batch = puller.receive(3, Duration.ofSeconds(10));
      assertFalse(batch.isEmpty(), "only " + got.size() + " of 5 received");
      assertTrue(batch.size() <= 3, "receive returned " + batch.size() + ", more than max");
      got.addAll(batch);
    }
    assertEquals(List.of("m0", "m1", "m2", "m3", "m4"), got.stream().map(m -> new String(m.payload())).toList());
    got.get(0).nack(Duration.ZERO);
    got.subList(1, 5).forEach(ReceivedMessage::ack);
    List<ReceivedMessage> again = puller.receive(10, Duration.ofSeconds(10));
    assertEquals(1, again.size());
    assertEquals("m0", new String(again.get(0).payload()));
    assertEquals(2, again.get(0).attempt());
    again.get(0).ack();
    // Longer than the broker's in-flight timeout (2 s): an ack that did not count would come back.
    assertEquals(List.of(), puller.receive(10, Duration.ofSeconds(3)), "acked deliveries stay gone");

    puller.close();
    assertThrows(IllegalStateException.class, () -> puller.receive(1, Duration.ZERO));
    producer.close();
  }

  @Test
  void receiveIsForConsumersWithoutAHandler() throws Exception {
    FutureQConsumer pushed = client.subscribe("pull-push", "g", m -> { }, ConsumerOptions.defaults());
    assertThrows(IllegalStateException.class, () -> pushed.receive(1, Duration.ZERO));
    pushed.close();
  }

  @Test
  void handlerThreadsRunThatManyHandlersAtOnce() throws Exception {
    int threads = 4;
    // Each handler waits for the others: handlers run one at a time would break the barrier.
    CyclicBarrier together = new CyclicBarrier(threads);
    CountDownLatch met = new CountDownLatch(threads);
    FutureQConsumer consumer = client.subscribe("threads", "g", m -> {
      together.await(30, TimeUnit.SECONDS);
      met.countDown();
    }, ConsumerOptions.defaults().withHandlerThreads(threads).withMaxInFlight(threads));
    consumer.subscribed().get(10, TimeUnit.SECONDS);
    FutureQProducer producer = client.producer(ProducerOptions.defaults());
    for (int i = 0; i < threads; i++) {
      producer.send(OutgoingMessage.to("threads").payload("m" + i).build());
    }
    producer.flush();

    assertTrue(met.await(60, TimeUnit.SECONDS), (threads - met.getCount()) + " of " + threads + " handlers met");
    consumer.close();
    producer.close();
  }

  @Test
  void oneHandlerThreadHandlesInDeliveryOrderOneAtATime() throws Exception {
    List<String> order = Collections.synchronizedList(new ArrayList<>());
    AtomicInteger running = new AtomicInteger();
    AtomicInteger mostAtOnce = new AtomicInteger();
    FutureQConsumer consumer = client.subscribe("ordered", "g", m -> {
      mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
      Thread.sleep(5); // a sleep: a handler still running when the next delivery arrives
      order.add(new String(m.payload()));
      running.decrementAndGet();
    }, ConsumerOptions.defaults().withMaxInFlight(50));
    consumer.subscribed().get(10, TimeUnit.SECONDS);
    FutureQProducer producer = client.producer(ProducerOptions.defaults());
    Instant due = Instant.now();
    List<String> sent = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      sent.add("m" + i);
      producer.send(OutgoingMessage.to("ordered").payload("m" + i).at(due).build());
    }
    producer.flush();

    Await.until("every message handled", Duration.ofSeconds(30), () -> order.size() >= sent.size(),
        () -> "handled " + order);
    assertEquals(sent, order);
    assertEquals(1, mostAtOnce.get());
    consumer.close();
    producer.close();
  }

  @Test
  void closedProducersAndConsumersAreLetGoWithTheirThreads() throws Exception {
    try (FutureQClient own = FutureQClient.builder().target("127.0.0.1:" + broker.node.grpcPort()).build()) {
      List<FutureQConsumer> consumers = new ArrayList<>();
      CountDownLatch handled = new CountDownLatch(10);
      for (int i = 0; i < 10; i++) {
        FutureQConsumer c = own.subscribe("release", "g" + i, m -> handled.countDown(),
            ConsumerOptions.defaults().withHandlerThreads(2));
        c.subscribed().get(10, TimeUnit.SECONDS);
        consumers.add(c);
      }
      FutureQProducer producer = own.producer(ProducerOptions.defaults());
      producer.send(OutgoingMessage.to("release").payload("one").build()).get(10, TimeUnit.SECONDS);
      assertTrue(handled.await(30, TimeUnit.SECONDS), "every group's consumer ran its handler");
      assertEquals(11, own.openHandles());
      assertTrue(handlerThreads("release") > 0);

      producer.close();
      consumers.forEach(FutureQConsumer::close);

      assertEquals(0, own.openHandles(), "the client keeps no closed producer or consumer");
      // A closed consumer waits for its handler threads, but a thread may take a moment to end after that.
      Await.until("closed consumers' handler threads gone", Duration.ofSeconds(10),
          () -> handlerThreads("release") == 0, () -> handlerThreads("release") + " alive");
      consumers.forEach(c -> assertTrue(c.terminated().isDone()));
    }
  }

  @Test
  void learnsTheBrokersDialableAddressNotItsWildcardBind() throws Exception {
    int port = broker.node.grpcPort();
    assertEquals("127.0.0.1:" + port, client.clusterInfo().get(10, TimeUnit.SECONDS).getMembers(0).getGrpcAddress());
    try (FutureQClient viaName = FutureQClient.builder().target("localhost:" + port).build()) {
      Await.until("the client to learn the broker's own address", Duration.ofSeconds(30),
          () -> viaName.targets().size() >= 2, () -> "it knows " + viaName.targets());
      assertEquals(List.of("localhost:" + port, "127.0.0.1:" + port), viaName.targets());
    }
  }

  private static long handlerThreads(String topic) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().startsWith("futureq-consumer-" + topic + "-")).count();
  }
}
