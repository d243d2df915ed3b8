package io.futureq.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.testing.Await;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor.MethodType;
import io.grpc.Status;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reproducers for two ways one unauthenticated client exhausts the broker's heap: the HTTP/2 layer
 * buffers a frame of any declared length (up to 16 MiB) although the broker never allowed frames
 * over 16 KiB, and the gRPC layer buffers a whole message of any length before the request-size
 * limits ({@code futureq.api.max-batch-size}) are checked. Against a broker process with
 * {@code -Xmx512m} (as in the e2e tests) each ends in {@code OutOfMemoryError} and, through
 * {@code pekko.jvm-exit-on-fatal-error}, the process exits. See docs/reliability.md, "Known bugs".
 *
 * <p>The message-size case is fixed (ApiServer refuses a message by its length prefix); the frame
 * case is a pekko-http limitation and stays disabled until it is fixed there.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class OversizedInputTest {
  private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

  @TempDir
  Path dir;

  @Test
  @Disabled("pekko-http 1.2.0 buffers an HTTP/2 frame of any declared length (OOM); see docs/reliability.md")
  void framesLongerThanTheMaximumFrameSizeAreRefusedNotBuffered() throws Exception {
    try (BrokerNode broker = BrokerNode.create(dir, "", List.of()).start(Duration.ofSeconds(90))) {
      int connections = 40;
      ExecutorService pool = Executors.newFixedThreadPool(connections);
      List<Socket> sockets = new ArrayList<>();
      List<Future<Long>> sent = new ArrayList<>();
      try {
        for (int i = 0; i < connections; i++) {
          Socket socket = new Socket("127.0.0.1", broker.grpcPort);
          sockets.add(socket);
          sent.add(pool.submit(() -> declareHugeFrame(socket, 15 << 20)));
        }
        for (Future<Long> f : sent) {
          f.get(120, TimeUnit.SECONDS);
        }
        Await.holdsFor("the broker alive 3 s after 40 connections each sent 15 MiB of a declared 16 MiB frame",
            Duration.ofSeconds(3), broker::alive);
      } finally {
        for (Socket s : sockets) {
          s.close();
        }
        pool.shutdownNow();
      }
    }
  }

  @Test
  void aGrpcMessageOverTheRequestSizeLimitIsRefusedBeforeItIsBuffered() throws Exception {
    try (BrokerNode broker = BrokerNode.create(dir, "", List.of()).start(Duration.ofSeconds(90))) {
      ManagedChannel channel = RawGrpc.channel(broker.grpcPort);
      try {
        RawGrpc.Outcome outcome = RawGrpc.call(channel, RawGrpc.raw("futureq.v1.Producer/Publish", MethodType.UNARY),
            new Metadata(), Duration.ofSeconds(120), new byte[300 << 20]);
        Await.holdsFor("the broker alive 3 s after one 300 MiB Publish", Duration.ofSeconds(3), broker::alive);
        // The broker fails the call on the length prefix and drops the rest of the upload: the client
        // sees the status naming the limit, not a reset stream (CANCELLED, before issue 27).
        assertEquals(Status.Code.RESOURCE_EXHAUSTED, outcome.code(), outcome.toString());
        assertTrue(outcome.status().getDescription().contains("futureq.api.max-batch-size"), outcome.toString());
      } finally {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
    }
  }

  /** The HTTP/2 preface, an empty SETTINGS frame, then a frame header declaring 16 MiB - 1 and {@code bytes} of it. */
  private static long declareHugeFrame(Socket socket, long bytes) {
    long written = 0;
    try {
      OutputStream out = socket.getOutputStream();
      out.write(PREFACE);
      out.write(new byte[] {0, 0, 0, 4, 0, 0, 0, 0, 0});
      int length = 0xffffff;
      out.write(ByteBuffer.allocate(9).put((byte) (length >> 16)).put((byte) (length >> 8)).put((byte) length)
          .put((byte) 0x20).put((byte) 0).putInt(0).array());
      byte[] chunk = new byte[64 * 1024];
      while (written < bytes) {
        out.write(chunk);
        written += chunk.length;
      }
      out.flush();
    } catch (Exception e) {
      // the broker closed the connection (the fix) or died (the bug): the assertions tell which
    }
    return written;
  }
}
