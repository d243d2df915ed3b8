package io.futureq.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a producer does when no broker answers: a port where nothing listens, and a server that takes
 * the connection and never says a word (as a hung broker or a black-holing proxy would).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class NoBrokerTest {
  private final List<Socket> accepted = new ArrayList<>();
  private ServerSocket silent;

  @AfterEach
  void closeSilentServer() throws IOException {
    if (silent != null) {
      silent.close();
    }
    for (Socket s : accepted) {
      s.close();
    }
  }

  @Test
  void sendFailsAfterTheDeliveryTimeoutWhenNothingListens() throws Exception {
    assertSendTimesOut(unusedPort());
  }

  @Test
  void sendFailsAfterTheDeliveryTimeoutWhenTheServerNeverAnswers() throws Exception {
    assertSendTimesOut(silentServer());
  }

  @Test
  void closeIsBoundedByTheCloseTimeoutAndFailsWhatIsOutstanding() throws Exception {
    try (FutureQClient client = FutureQClient.builder().target("127.0.0.1:" + silentServer()).build()) {
      FutureQProducer producer = client.producer(ProducerOptions.defaults().withDeliveryTimeout(Duration.ofHours(1))
          .withCloseTimeout(Duration.ofMillis(500)));
      CompletableFuture<SendResult> sent = producer.send(OutgoingMessage.to("t").payload("x").build());

      // Generous: without the bound, close waited for the request timeout (30 s).
      assertTimeoutPreemptively(Duration.ofSeconds(20), () -> producer.close());
      ExecutionException e = assertThrows(ExecutionException.class, () -> sent.get(1, TimeUnit.SECONDS));
      assertEquals(Status.Code.CANCELLED, ((FutureQException) e.getCause()).code());
      assertEquals(0, producer.outstanding());
      assertEquals(0, client.openHandles(), "a closed producer is let go");
    }
  }

  @Test
  void sendOnAClosedProducerFailsAtOnce() throws Exception {
    try (FutureQClient client = FutureQClient.builder().target("127.0.0.1:" + unusedPort()).build()) {
      FutureQProducer producer = client.producer(ProducerOptions.defaults());
      producer.close();
      ExecutionException e = assertThrows(ExecutionException.class,
          () -> producer.send(OutgoingMessage.to("t").payload("x").build()).get(1, TimeUnit.SECONDS));
      assertEquals(Status.Code.CANCELLED, ((FutureQException) e.getCause()).code());
    }
  }

  private static void assertSendTimesOut(int port) throws Exception {
    try (FutureQClient client = FutureQClient.builder().target("127.0.0.1:" + port).build()) {
      FutureQProducer producer = client.producer(ProducerOptions.defaults().withDeliveryTimeout(Duration.ofSeconds(1)));
      CompletableFuture<SendResult> sent = producer.send(OutgoingMessage.to("t").payload("x").key("k").build());

      ExecutionException e = assertThrows(ExecutionException.class, () -> sent.get(60, TimeUnit.SECONDS));
      FutureQException failure = (FutureQException) e.getCause();
      assertEquals(Status.Code.DEADLINE_EXCEEDED, failure.code());
      assertTrue(failure.getMessage().contains("delivery timeout of 1000 ms"), failure.getMessage());
      assertEquals(0, producer.outstanding(), "a timed-out send gives its place back");
      assertTimeoutPreemptively(Duration.ofSeconds(20), () -> producer.close());
    }
  }

  private static int unusedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** Accepts connections and reads nothing, writes nothing. */
  private int silentServer() throws IOException {
    silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(() -> {
      try {
        while (true) {
          Socket s = silent.accept();
          synchronized (accepted) {
            accepted.add(s);
          }
        }
      } catch (IOException closed) {
        // the test is over
      }
    }, "silent-server");
    acceptor.setDaemon(true);
    acceptor.start();
    return silent.getLocalPort();
  }
}
