package io.futureq.e2e;

import static io.futureq.e2e.Messages.message;
import static io.futureq.e2e.Messages.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.api.grpc.Delivery;
import io.futureq.api.grpc.PublishResponse;
import io.futureq.config.StorageEngine;
import io.futureq.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** The key of an acked message is free again at once, not only after the next delete batch; on each engine. */
@ParameterizedClass(name = "{0}")
@EnumSource(StorageEngine.class)
class KeyReuseE2ETest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  /** Declares the class's argument, which start() receives: one broker per engine. */
  @Parameter
  StorageEngine engine;
  @TempDir
  static Path dir;
  static TestBroker broker;

  @BeforeParameterizedClassInvocation
  static void start(StorageEngine engine) {
    // A delete batch interval far longer than the test: only an immediate write frees the key in time.
    broker = TestBroker.start(engine, dir.resolve("data-" + engine.configName()),
        Map.of("futureq.topic.delete-batch-interval", "30s"));
  }

  @AfterParameterizedClassInvocation
  static void stop() {
    broker.close();
  }

  private static PublishResponse publish(String payload) throws Exception {
    return broker.producer.publish(request(message("keyed", payload, 0).setKey("order-42"))).toCompletableFuture()
        .get(10, TimeUnit.SECONDS);
  }

  @Test
  void aKeyIsFreeSoonAfterItsMessageIsAckedWhateverTheDeleteBatchInterval() throws Exception {
    try (Subscription sub = Subscription.open(broker, "keyed", "g", 10).awaitSubscribed(WAIT)) {
      assertFalse(publish("first").getDuplicate(0));
      Delivery first = sub.next(WAIT).delivery();
      assertTrue(publish("again").getDuplicate(0), "the key is held while its message is pending");
      sub.ack(first);

      Await.until("the key free within 5 s of the ack (delete batch interval 30 s)", Duration.ofSeconds(5),
          () -> !publish("second").getDuplicate(0));
      assertEquals("second", sub.next(WAIT).delivery().getPayload().toStringUtf8());
    }
  }
}
