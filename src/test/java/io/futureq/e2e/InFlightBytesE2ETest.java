package io.futureq.e2e;

import static io.futureq.e2e.Messages.message;
import static io.futureq.e2e.Messages.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.api.grpc.ConsumerFrame;
import io.futureq.api.grpc.Message;
import io.futureq.api.grpc.SubscribeInit;
import io.futureq.api.grpc.Subscribed;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A subscriber's credit in bytes ({@code max_in_flight_bytes}) over real gRPC: with large messages the broker never
 * has more payload bytes unacked to one subscriber than its bound, a subscriber that does not send the field (an
 * older client) gets the broker default, and bad values are refused naming the field.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class InFlightBytesE2ETest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  /** Quiet time in which no further delivery may come (the bound holds). */
  private static final Duration QUIET = Duration.ofMillis(300);
  private static final int PAYLOAD = 30_000;
  @RegisterExtension
  static final BrokerExtension broker = BrokerExtension.withSettings(Map.of(
      "futureq.api.default-max-in-flight-bytes", "64KiB", "futureq.api.max-in-flight-bytes", "1MiB"));

  @Test
  void withLargeMessagesTheBrokerNeverHasMoreThanTheBoundUnackedToOneSubscriber() throws Exception {
    String topic = "bytes-bound";
    try (Subscription sub = subscribe(topic, 100, 100_000)) {
      Subscribed subscribed = sub.subscribed.get(10, TimeUnit.SECONDS);
      assertEquals(100_000, subscribed.getMaxInFlightBytes());
      publishLarge(topic, 10);

      List<Subscription.Received> first = sub.take(3, WAIT);
      sub.expectNothing(QUIET); // a 4th would make 120,000 bytes unacked
      sub.ack(first.get(0).delivery());
      sub.take(1, WAIT);
      sub.expectNothing(QUIET);
      sub.ack(first.get(1).delivery(), first.get(2).delivery());
      sub.take(2, WAIT);
      sub.expectNothing(QUIET);
    }
  }

  @Test
  void aSubscribeWithoutTheFieldStillWorksAndGetsTheBrokerDefault() throws Exception {
    String topic = "bytes-default";
    try (Subscription sub = Subscription.open(broker, topic, "g", 100)) {
      Subscribed subscribed = sub.subscribed.get(10, TimeUnit.SECONDS);
      assertEquals(100, subscribed.getMaxInFlight());
      assertEquals(64 * 1024, subscribed.getMaxInFlightBytes());
      publishLarge(topic, 4);

      List<Subscription.Received> got = sub.take(2, WAIT);
      sub.expectNothing(QUIET); // 3 x 30,000 bytes pass the default of 64 KiB
      sub.ack(got.get(0).delivery(), got.get(1).delivery());
      sub.take(2, WAIT);
    }
  }

  @Test
  void aNegativeOrTooLargeBoundIsRefusedNamingTheField() throws Exception {
    Status negative = fails(subscribe("bytes-bad", 10, -1));
    assertEquals(Status.Code.INVALID_ARGUMENT, negative.getCode(), negative.toString());
    assertTrue(negative.getDescription().contains("init.max_in_flight_bytes"), negative.getDescription());

    Status tooLarge = fails(subscribe("bytes-bad", 10, (1 << 20) + 1));
    assertEquals(Status.Code.RESOURCE_EXHAUSTED, tooLarge.getCode(), tooLarge.toString());
    assertTrue(tooLarge.getDescription().contains("init.max_in_flight_bytes"), tooLarge.getDescription());
    assertTrue(tooLarge.getDescription().contains("futureq.api.max-in-flight-bytes"), tooLarge.getDescription());
  }

  private static Subscription subscribe(String topic, int maxInFlight, long maxInFlightBytes) {
    return new Subscription(broker.clientSystem(), broker.consumer(), ConsumerFrame.newBuilder().setInit(SubscribeInit
        .newBuilder().setTopic(topic).setGroup("g").setMaxInFlight(maxInFlight).setMaxInFlightBytes(maxInFlightBytes))
        .build());
  }

  private static Status fails(Subscription sub) {
    ExecutionException e = assertThrows(ExecutionException.class, () -> sub.done.get(10, TimeUnit.SECONDS));
    return ((StatusRuntimeException) e.getCause()).getStatus();
  }

  private static void publishLarge(String topic, int count) throws Exception {
    Message.Builder[] messages = new Message.Builder[count];
    for (int i = 0; i < count; i++) {
      messages[i] = message(topic, String.valueOf((char) ('a' + i)).repeat(PAYLOAD), 0);
    }
    broker.producer().publish(request(messages)).toCompletableFuture().get(10, TimeUnit.SECONDS);
  }
}
