package io.futureq.e2e;

import static io.futureq.e2e.Messages.message;
import static io.futureq.e2e.Messages.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.api.grpc.PublishRequest;
import io.futureq.config.StorageEngine;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Configured limits answer RESOURCE_EXHAUSTED naming the limit; what was accepted stays. On each
 * engine: the limits are what bounds the heap of a broker on the memory engine.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(StorageEngine.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LimitsE2ETest {
  /** Declares the class's argument, which start() receives: one broker per engine. */
  @Parameter
  StorageEngine engine;
  @TempDir
  static Path dir;
  static TestBroker broker;

  @BeforeParameterizedClassInvocation
  static void start(StorageEngine engine) {
    broker = TestBroker.start(engine, dir.resolve("data-" + engine.configName()), Map.of(
        "futureq.limits.max-topics", 3, "futureq.limits.max-pending-per-topic", 5,
        "futureq.limits.max-consumers-per-group", 1));
  }

  @AfterParameterizedClassInvocation
  static void stop() {
    broker.close();
  }

  private static Status fails(PublishRequest request) {
    ExecutionException e = assertThrows(ExecutionException.class,
        () -> broker.producer.publish(request).toCompletableFuture().get(10, TimeUnit.SECONDS));
    return ((StatusRuntimeException) e.getCause()).getStatus();
  }

  @Test
  void pendingMessagesPerTopicAreLimited() throws Exception {
    broker.producer.publish(request(message("full", "1", 60_000), message("full", "2", 60_000),
        message("full", "3", 60_000), message("full", "4", 60_000))).toCompletableFuture().get(10, TimeUnit.SECONDS);
    Status status = fails(request(message("full", "5", 60_000), message("full", "6", 60_000)));
    assertEquals(Status.Code.RESOURCE_EXHAUSTED, status.getCode());
    assertTrue(status.getDescription().contains("topic full has 4 pending"), status.getDescription());
    assertTrue(status.getDescription().contains("futureq.limits.max-pending-per-topic"));
    broker.producer.publish(request(message("full", "5", 60_000))).toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void topicsPerBrokerAreLimited() throws Exception {
    broker.producer.publish(request(message("a-topic", "x", 60_000))).toCompletableFuture().get(10, TimeUnit.SECONDS);
    broker.producer.publish(request(message("b-topic", "x", 60_000))).toCompletableFuture().get(10, TimeUnit.SECONDS);
    Status status = fails(request(message("c-topic", "x", 60_000), message("d-topic", "x", 60_000)));
    assertEquals(Status.Code.RESOURCE_EXHAUSTED, status.getCode());
    assertTrue(status.getDescription().contains("futureq.limits.max-topics"), status.getDescription());
    broker.producer.publish(request(message("a-topic", "y", 60_000))).toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void consumersPerGroupAreLimited() throws Exception {
    try (Subscription first = Subscription.open(broker, "full", "only", 10)) {
      first.next(Duration.ofSeconds(1)).delivery();
    } catch (AssertionError expectedNoDueMessage) {
      // the topic's messages are not due: the first consumer just holds its place
    }
    // The first consumer leaves once the group sees its stream end; on a loaded machine that can come
    // after the next one asks to join, which is then refused. Join until one holds the place.
    Subscription holder = Subscription.open(broker, "full", "only", 10);
    long deadline = System.currentTimeMillis() + 30_000;
    while (refusedWithin(holder, 500) && System.currentTimeMillis() < deadline) {
      holder = Subscription.open(broker, "full", "only", 10);
    }
    assertTrue(!holder.done.isDone(), "a consumer joins the group once the first has left");
    Subscription second = Subscription.open(broker, "full", "only", 10);
    ExecutionException e = assertThrows(ExecutionException.class, () -> second.done.get(10, TimeUnit.SECONDS));
    Status status = ((StatusRuntimeException) e.getCause()).getStatus();
    assertEquals(Status.Code.RESOURCE_EXHAUSTED, status.getCode());
    assertTrue(status.getDescription().contains("max-consumers-per-group"), status.getDescription());
    assertTrue(!holder.done.isDone(), "the consumer already in the group keeps its stream");
    holder.close();
  }

  private static boolean refusedWithin(Subscription subscription, long ms) throws InterruptedException {
    try {
      subscription.done.get(ms, TimeUnit.MILLISECONDS);
      return true;
    } catch (ExecutionException e) {
      return true;
    } catch (TimeoutException e) {
      return false;
    }
  }
}
