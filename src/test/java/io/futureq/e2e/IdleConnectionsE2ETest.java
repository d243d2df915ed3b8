package io.futureq.e2e;

import static io.futureq.e2e.Messages.message;
import static io.futureq.e2e.Messages.request;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.futureq.testing.Await;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The gRPC port closes connections that carry nothing ({@code futureq.api.idle-timeout}) and keeps quiet streams
 * alive with pings ({@code keepalive-interval}). Before, 300 connections that sent half an HTTP/2 preface stayed
 * open for good (issue 27, N6).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class IdleConnectionsE2ETest {
  private static final Duration IDLE = Duration.ofSeconds(2);
  private static final Duration WAIT = Duration.ofSeconds(30);
  @RegisterExtension
  static final BrokerExtension broker = BrokerExtension.withSettings(Map.of(
      "futureq.api.idle-timeout", IDLE.toMillis() + "ms", "futureq.api.keepalive-interval", "300ms"));

  @Test
  void aConnectionThatStopsAfterThePrefaceIsClosed() throws IOException {
    try (Socket half = new Socket("127.0.0.1", broker.grpcPort())) {
      // The client preface's magic, then nothing: no SETTINGS frame, so the handshake never completes.
      half.getOutputStream().write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      half.getOutputStream().flush();
      assertEquals(-1, readUntilClosed(half), "the broker closed the connection");
    }
  }

  @Test
  void aConnectionThatSendsNothingIsClosed() throws IOException {
    try (Socket silent = new Socket("127.0.0.1", broker.grpcPort())) {
      assertEquals(-1, readUntilClosed(silent), "the broker closed the connection");
    }
  }

  @Test
  void aQuietSubscribeStreamOutlivesTheIdleTimeout() throws Exception {
    String topic = "idle-quiet";
    try (Subscription sub = Subscription.open(broker, topic, "g", 10)) {
      sub.awaitSubscribed(WAIT);
      // Time is the subject: three idle timeouts without a delivery, the pings being the only traffic.
      Await.holdsFor("the quiet stream stays open", IDLE.multipliedBy(3), () -> !sub.done.isDone());
      broker.producer().publish(request(message(topic, "late news", 0))).toCompletableFuture()
          .get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertEquals("late news", sub.take(1, WAIT).get(0).delivery().getPayload().toStringUtf8());
    }
  }

  /** Reads (and drops) what the broker sends until it closes; -1 then, or fails after {@link #WAIT}. */
  private static int readUntilClosed(Socket socket) throws IOException {
    socket.setSoTimeout((int) WAIT.toMillis());
    InputStream in = socket.getInputStream();
    try {
      while (in.read() != -1) {
        // the server's SETTINGS frame and, at the timeout, its GOAWAY
      }
      return -1;
    } catch (SocketTimeoutException e) {
      throw new AssertionError("the connection was still open after " + WAIT, e);
    } catch (SocketException reset) {
      return -1; // closed with a reset: closed all the same
    }
  }
}
