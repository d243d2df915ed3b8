package io.futureq.bench;

import com.google.protobuf.ByteString;
import io.futureq.api.grpc.AckLevel;
import io.futureq.api.grpc.Message;
import io.futureq.api.grpc.PublishRequest;
import io.futureq.config.StorageEngine;
import io.futureq.e2e.TestBroker;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Heap a pending message costs: starts an in-process broker, publishes {@code messages} messages
 * due in an hour (none is delivered while it runs) and compares the heap in use after a full GC
 * before and after. Run by {@code scripts/heap-per-message.sh}; figures in docs/benchmarks.md.
 *
 * <p>Arguments: engine (memory or rocksdb), messages, payload bytes, and "keyed" to give every
 * message a key and a TTL (two more index entries each).
 */
public final class HeapPerPendingMessage {
  private static final int BATCH = 1000;

  private HeapPerPendingMessage() {}

  public static void main(String[] args) throws Exception {
    StorageEngine engine = StorageEngine.valueOf(args[0].toUpperCase(Locale.ROOT));
    int messages = Integer.parseInt(args[1]);
    int payloadBytes = Integer.parseInt(args[2]);
    boolean keyed = args.length > 3 && args[3].equals("keyed");
    Path dir = Files.createTempDirectory("futureq-heap");
    try (TestBroker broker = TestBroker.start(engine, dir.resolve("data"), Map.of())) {
      publish(broker, 2 * BATCH, payloadBytes, keyed, "warm-up"); // loads classes and fills caches first
      long before = usedHeapAfterGc();
      publish(broker, messages, payloadBytes, keyed, "heap");
      long after = usedHeapAfterGc();
      System.out.printf("engine=%s messages=%d payload=%dB keyed=%s heap-before=%.1fMiB heap-after=%.1fMiB "
              + "per-message=%dB%n", engine.configName(), messages, payloadBytes, keyed, before / 1048576.0,
          after / 1048576.0, (after - before) / messages);
    }
  }

  private static void publish(TestBroker broker, int messages, int payloadBytes, boolean keyed, String topic)
      throws Exception {
    ByteString payload = ByteString.copyFrom(new byte[payloadBytes]);
    for (int sent = 0; sent < messages; sent += BATCH) {
      PublishRequest.Builder request = PublishRequest.newBuilder().setRequestId(UUID.randomUUID().toString())
          .setAckLevel(AckLevel.ACK_LEVEL_QUORUM);
      for (int i = sent; i < Math.min(messages, sent + BATCH); i++) {
        Message.Builder m = Message.newBuilder().setTopic(topic).setPayload(payload)
            .setDelayMs(TimeUnit.HOURS.toMillis(1) + i);
        if (keyed) {
          m.setKey("order-" + i).setTtlMs(TimeUnit.HOURS.toMillis(2));
        }
        request.addMessages(m);
      }
      broker.producer.publish(request.build()).toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
  }

  private static long usedHeapAfterGc() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(300); // a sleep: lets the collection and its reference processing settle; no event to await
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
