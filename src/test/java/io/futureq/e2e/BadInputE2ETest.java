package io.futureq.e2e;

import static io.futureq.e2e.Messages.message;
import static io.futureq.e2e.Messages.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.futureq.api.grpc.AckFrame;
import io.futureq.api.grpc.AckLevel;
import io.futureq.api.grpc.CancelRequest;
import io.futureq.api.grpc.ConsumerFrame;
import io.futureq.api.grpc.GetTopicStatsRequest;
import io.futureq.api.grpc.Message;
import io.futureq.api.grpc.NackFrame;
import io.futureq.api.grpc.PublishRequest;
import io.futureq.api.grpc.PublishResponse;
import io.futureq.api.grpc.SubscribeInit;
import io.futureq.api.grpc.TagRange;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Every kind of bad input gets the right status and a message naming the field; nothing accepted is lost. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BadInputE2ETest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  @RegisterExtension
  static final BrokerExtension broker = BrokerExtension.withSettings(Map.of("futureq.api.min-ack-level", "LEADER",
      "futureq.api.max-payload-size", "1KiB", "futureq.api.max-batch-size", "4KiB",
      "futureq.api.max-delay", "1d", "futureq.api.max-in-flight", 50,
      "futureq.api.default-max-in-flight", 10, "futureq.api.max-headers-size", "1KiB"));

  private Status publishFails(PublishRequest request) {
    ExecutionException e = assertThrows(ExecutionException.class,
        () -> broker.producer().publish(request).toCompletableFuture().get(10, TimeUnit.SECONDS));
    return ((StatusRuntimeException) e.getCause()).getStatus();
  }

  private void assertRejected(Status.Code code, String fieldText, PublishRequest request) {
    Status status = publishFails(request);
    assertEquals(code, status.getCode(), status.toString());
    assertTrue(status.getDescription().contains(fieldText), status.getDescription());
  }

  @Test
  void rejectsBadTopicsNamingTheIndex() {
    assertRejected(Status.Code.INVALID_ARGUMENT, "messages[1].topic: must not be empty",
        request(message("ok", "x", 0), message("", "x", 0)));
    assertRejected(Status.Code.INVALID_ARGUMENT, "messages[0].topic: 250 characters",
        request(message("t".repeat(250), "x", 0)));
    assertRejected(Status.Code.INVALID_ARGUMENT, "messages[0].topic: character '/'",
        request(message("a/b", "x", 0)));
    assertRejected(Status.Code.INVALID_ARGUMENT, "messages[0].topic: 262 characters, more than 261",
        request(message("t".repeat(250) + ".dead-letter", "x", 0)));
    assertRejected(Status.Code.INVALID_ARGUMENT, "messages[0].topic: character '/' at position 2",
        request(message("ab/" + "t".repeat(240) + ".dead-letter", "x", 0)));
  }

  @Test
  void rejectsAnEmptyBatch() {
    assertRejected(Status.Code.INVALID_ARGUMENT, "messages: must not be empty",
        PublishRequest.newBuilder().setAckLevel(AckLevel.ACK_LEVEL_QUORUM).build());
  }

  @Test
  void rejectsOversizedPayloadsAndBatches() {
    String big = "x".repeat(1025);
    assertRejected(Status.Code.RESOURCE_EXHAUSTED, "messages[0].payload: 1025 bytes",
        request(message("big", big, 0)));
    Messages.message("big", "x", 0);
    var batch = new Message.Builder[5];
    for (int i = 0; i < 5; i++) {
      batch[i] = message("big", "y".repeat(1000), 0);
    }
    assertRejected(Status.Code.RESOURCE_EXHAUSTED, "max-batch-size", request(batch));
  }

  @Test
  void rejectsHeadersOverTheByteLimitNamingTheIndex() {
    // 20 + 1,005 bytes of names and values (the value's \u00e9 is two UTF-8 bytes): one byte over 1 KiB
    Message.Builder over = message("headers", "x", 0).putHeaders("n".repeat(20), "\u00e9" + "v".repeat(1003));
    assertRejected(Status.Code.INVALID_ARGUMENT,
        "messages[1].headers: 1025 bytes of names and values, more than the limit of 1024"
            + " (futureq.api.max-headers-size)",
        request(message("headers", "x", 0), over));
    Message.Builder atLimit = message("headers", "x", 0).putHeaders("n".repeat(20), "v".repeat(1004));
    broker.producer().publish(request(atLimit)).toCompletableFuture().join();
  }

  @Test
  void aGrpcMessageOverTheTransportLimitIsResourceExhaustedNamingTheSetting() {
    // Beyond max-batch-size (4 KiB) plus 1 MiB, the gRPC message limit: refused on its length prefix while the
    // client is still sending, which must still end in a status, not a reset stream (CANCELLED).
    for (int round = 0; round < 5; round++) {
      PublishRequest huge = request(message("huge", "x".repeat(3 << 20), 0));
      Status status = publishFails(huge);
      assertEquals(Status.Code.RESOURCE_EXHAUSTED, status.getCode(), "round " + round + ": " + status);
      assertTrue(status.getDescription().contains("futureq.api.max-batch-size"), status.getDescription());
    }
  }

  @Test
  void aStreamedGrpcMessageOverTheTransportLimitEndsTheStreamResourceExhausted() {
    for (int round = 0; round < 5; round++) {
      PublishRequest huge = request(message("huge", "x".repeat(3 << 20), 0));
      ExecutionException e = assertThrows(ExecutionException.class, () -> broker.producer()
          .publishStream(Source.single(huge)).runWith(Sink.seq(), broker.clientSystem()).toCompletableFuture()
          .get(10, TimeUnit.SECONDS));
      Status status = ((StatusRuntimeException) e.getCause()).getStatus();
      assertEquals(Status.Code.RESOURCE_EXHAUSTED, status.getCode(), "round " + round + ": " + status);
      assertTrue(status.getDescription().contains("futureq.api.max-batch-size"), status.getDescription());
    }
  }

  @Test
  void rejectsNegativeDelaysAndTtlsAndDueTimesTooFarAhead() {
    assertRejected(Status.Code.INVALID_ARGUMENT, "messages[0].delay_ms: must not be negative",
        request(message("t", "x", -5)));
    assertRejected(Status.Code.INVALID_ARGUMENT, "messages[0].ttl_ms: must not be negative",
        request(message("t", "x", 0).setTtlMs(-1)));
    assertRejected(Status.Code.INVALID_ARGUMENT, "messages[0].delay_ms: due 172800000ms from now",
        request(message("t", "x", Duration.ofDays(2).toMillis())));
    assertRejected(Status.Code.INVALID_ARGUMENT, "messages[0].deliver_at_unix_ms",
        request(message("t", "x", 0).setDeliverAtUnixMs(System.currentTimeMillis() + Duration.ofDays(3).toMillis())));
  }

  @Test
  void rejectsAnAckLevelBelowTheBrokerMinimum() {
    PublishRequest none = request(message("t", "x", 0)).toBuilder().setAckLevel(AckLevel.ACK_LEVEL_NONE).build();
    assertRejected(Status.Code.INVALID_ARGUMENT, "ack_level: NONE is below the broker minimum LEADER", none);
  }

  @Test
  void streamReportsAnErrorPerBadRequestAndKeepsServing() throws Exception {
    List<PublishRequest> requests = List.of(
        request(message("stream", "good-1", 0)).toBuilder().setRequestId("r1").build(),
        request(message("", "bad", 0)).toBuilder().setRequestId("r2").build(),
        request(message("stream", "good-2", 0)).toBuilder().setRequestId("r3").build());
    List<PublishResponse> responses = broker.producer().publishStream(Source.from(requests))
        .runWith(Sink.seq(), broker.clientSystem()).toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertEquals(List.of("r1", "r2", "r3"), responses.stream().map(PublishResponse::getRequestId).toList());
    assertEquals(1, responses.get(0).getMessageIdsCount());
    assertEquals(Status.Code.INVALID_ARGUMENT.value(), responses.get(1).getError().getCode());
    assertTrue(responses.get(1).getError().getMessage().contains("messages[0].topic"));
    assertEquals(0, responses.get(1).getMessageIdsCount());
    assertEquals(1, responses.get(2).getMessageIdsCount());
    long pending = broker.admin().getTopicStats(GetTopicStatsRequest.newBuilder().setTopic("stream").build())
        .toCompletableFuture().get(10, TimeUnit.SECONDS).getPending();
    assertEquals(2, pending);
  }

  @Test
  void rejectsACancelWithoutTargetOrWithAMalformedId() {
    ExecutionException noTarget = assertThrows(ExecutionException.class, () -> broker.producer().cancel(
        CancelRequest.newBuilder().setTopic("t").build()).toCompletableFuture().get(10, TimeUnit.SECONDS));
    assertTrue(noTarget.getCause().getMessage().contains("target: set key or message_id"));
    ExecutionException badId = assertThrows(ExecutionException.class, () -> broker.producer().cancel(
        CancelRequest.newBuilder().setTopic("t").setMessageId("zz").build()).toCompletableFuture()
        .get(10, TimeUnit.SECONDS));
    assertEquals(Status.Code.INVALID_ARGUMENT, ((StatusRuntimeException) badId.getCause()).getStatus().getCode());
    assertTrue(badId.getCause().getMessage().contains("message_id"));
  }

  private Status subscriptionFails(ConsumerFrame... frames) throws Exception {
    Subscription sub = new Subscription(broker.clientSystem(), broker.consumer(), frames[0]);
    for (int i = 1; i < frames.length; i++) {
      sub.send(frames[i]);
    }
    ExecutionException e = assertThrows(ExecutionException.class, () -> sub.done.get(10, TimeUnit.SECONDS));
    return ((StatusRuntimeException) e.getCause()).getStatus();
  }

  private static ConsumerFrame init(String topic, String group, int maxInFlight) {
    return ConsumerFrame.newBuilder().setInit(SubscribeInit.newBuilder().setTopic(topic).setGroup(group)
        .setMaxInFlight(maxInFlight)).build();
  }

  @Test
  void subscribeMustStartWithAValidInit() throws Exception {
    Status notInit = subscriptionFails(ConsumerFrame.newBuilder().setAck(AckFrame.newBuilder().addDeliveryTags(1))
        .build());
    assertEquals(Status.Code.INVALID_ARGUMENT, notInit.getCode());
    assertTrue(notInit.getDescription().contains("first frame must be an init"));
    Status badTopic = subscriptionFails(init("bad topic", "", 1));
    assertEquals(Status.Code.INVALID_ARGUMENT, badTopic.getCode());
    assertTrue(badTopic.getDescription().contains("init.topic"));
    Status tooMuchCredit = subscriptionFails(init("t", "g", 51));
    assertEquals(Status.Code.RESOURCE_EXHAUSTED, tooMuchCredit.getCode());
    assertTrue(tooMuchCredit.getDescription().contains("init.max_in_flight"));
  }

  @Test
  void aSecondInitFailsTheStream() throws Exception {
    Status second = subscriptionFails(init("t2", "g", 1), init("t2", "g", 1));
    assertEquals(Status.Code.FAILED_PRECONDITION, second.getCode());
    assertTrue(second.getDescription().contains("init"));
  }

  @Test
  void malformedTagsAndRangesFailTheStreamNamingTheField() throws Exception {
    Status zero = subscriptionFails(init("t3", "g", 1),
        ConsumerFrame.newBuilder().setAck(AckFrame.newBuilder().addDeliveryTags(0)).build());
    assertEquals(Status.Code.INVALID_ARGUMENT, zero.getCode());
    assertTrue(zero.getDescription().contains("ack.delivery_tags[0]"), zero.getDescription());

    Status backwards = subscriptionFails(init("t3", "g", 1), ConsumerFrame.newBuilder().setAck(AckFrame.newBuilder()
        .addRanges(TagRange.newBuilder().setFirst(1).setLast(1)).addRanges(TagRange.newBuilder().setFirst(5)
        .setLast(3))).build());
    assertEquals(Status.Code.INVALID_ARGUMENT, backwards.getCode());
    assertTrue(backwards.getDescription().contains("ack.ranges[1]"), backwards.getDescription());

    Status nackRange = subscriptionFails(init("t3", "g", 1), ConsumerFrame.newBuilder().setNack(NackFrame.newBuilder()
        .addRanges(TagRange.newBuilder().setFirst(0).setLast(2))).build());
    assertEquals(Status.Code.INVALID_ARGUMENT, nackRange.getCode());
    assertTrue(nackRange.getDescription().contains("nack.ranges[0]"), nackRange.getDescription());
  }

  @Test
  void anAckOfATagNeverDeliveredFailsTheStreamAndTheMessageIsDeliveredAgain() throws Exception {
    broker.producer().publish(request(message("t4", "x", 0))).toCompletableFuture().get(10, TimeUnit.SECONDS);
    Subscription sub = Subscription.open(broker, "t4", "g", 1);
    long tag = sub.next(WAIT).delivery().getDeliveryTag();
    assertEquals(1, tag);
    sub.send(ConsumerFrame.newBuilder().setAck(AckFrame.newBuilder().addRanges(TagRange.newBuilder().setFirst(1)
        .setLast(2))).build());
    ExecutionException e = assertThrows(ExecutionException.class, () -> sub.done.get(10, TimeUnit.SECONDS));
    Status unknown = ((StatusRuntimeException) e.getCause()).getStatus();
    assertEquals(Status.Code.FAILED_PRECONDITION, unknown.getCode());
    assertTrue(unknown.getDescription().contains("delivery tag 2 was never delivered"), unknown.getDescription());
    try (Subscription again = Subscription.open(broker, "t4", "g", 1)) {
      assertEquals("x", again.next(WAIT).delivery().getPayload().toStringUtf8());
    }
  }

  @Test
  void nothingAcceptedIsLostAfterRejections() throws Exception {
    PublishResponse ok = broker.producer().publish(request(message("kept", "v", 0).setKey("k")))
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
    publishFails(request(message("kept", "v", 0).setKey("k"), message("kept", "x".repeat(2000), 0)));
    try (Subscription sub = Subscription.open(broker, "kept", "g", 10)) {
      var d = sub.next(WAIT).delivery();
      assertEquals(ok.getMessageIds(0), d.getMessageId());
      assertEquals(ByteString.copyFromUtf8("v"), d.getPayload());
      sub.expectNothing(Duration.ofMillis(300));
    }
    assertFalse(ok.getDuplicate(0));
  }
}
