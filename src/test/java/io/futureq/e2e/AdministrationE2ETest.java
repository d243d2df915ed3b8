package io.futureq.e2e;

import static io.futureq.e2e.Messages.message;
import static io.futureq.e2e.Messages.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.api.grpc.DeleteGroupRequest;
import io.futureq.api.grpc.DeleteTopicRequest;
import io.futureq.api.grpc.GetMessageRequest;
import io.futureq.api.grpc.GetTopicStatsRequest;
import io.futureq.api.grpc.GroupStats;
import io.futureq.api.grpc.ListMessagesRequest;
import io.futureq.api.grpc.ListMessagesResponse;
import io.futureq.api.grpc.ListTopicsRequest;
import io.futureq.api.grpc.PendingMessage;
import io.futureq.api.grpc.PublishResponse;
import io.futureq.api.grpc.PurgeTopicRequest;
import io.futureq.api.grpc.RescheduleMessageRequest;
import io.futureq.api.grpc.RescheduleMessageResponse;
import io.futureq.api.grpc.TopicStats;
import io.futureq.testing.Await;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Group and topic deletion, purge, browsing, get, reschedule and per-group lag, over real gRPC. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class AdministrationE2ETest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final long HOUR = 3_600_000;
  @TempDir
  static Path dir;
  @RegisterExtension
  static final BrokerExtension broker = BrokerExtension.withDefaults();

  @Test
  void deletingAMistypedGroupDeletesWhatOnlyItHeldAndEndsItsStreams() throws Exception {
    String topic = "admin-typo";
    Subscription typo = Subscription.open(broker, topic, "billng", 10).awaitSubscribed(WAIT);
    try (Subscription billing = Subscription.open(broker, topic, "billing", 10).awaitSubscribed(WAIT)) {
      publish(topic, "o1", 0, "");
      publish(topic, "o2", 0, "");
      publish(topic, "o3", 0, "");
      for (Subscription.Received r : billing.take(3, WAIT)) {
        billing.ack(r.delivery());
      }
      typo.take(3, WAIT);
      TopicStats held = awaitStats(topic, s -> group(s, "billing").getLag() == 0);
      assertEquals(3, group(held, "billng").getLag(), "the typo's group holds all three");
      assertEquals(3, held.getPending());

      assertEquals(3, get(broker.admin().deleteGroup(DeleteGroupRequest.newBuilder().setTopic(topic)
          .setGroup("billng").build())).getRemoved());

      Status ended = streamStatus(typo);
      assertEquals(Status.Code.NOT_FOUND, ended.getCode(), ended.toString());
      assertEquals("group 'billng' of topic admin-typo was deleted", ended.getDescription());
      TopicStats after = stats(topic);
      assertEquals(0, after.getPending());
      assertEquals(List.of("billing"), after.getGroupsList().stream().map(GroupStats::getName).toList());
      assertFails(Status.Code.NOT_FOUND, "group: topic admin-typo has no group 'billng'",
          () -> broker.admin().deleteGroup(DeleteGroupRequest.newBuilder().setTopic(topic).setGroup("billng").build()));
      // The other group goes on.
      publish(topic, "o4", 0, "");
      assertEquals("o4", billing.next(WAIT).delivery().getPayload().toStringUtf8());
    }
  }

  @Test
  void statsOfAnUnknownTopicAreNotFoundAndLagCountsWhatTheGroupHasNotAcked() throws Exception {
    assertFails(Status.Code.NOT_FOUND, "topic: no topic named admin-no-such-topic",
        () -> broker.admin().getTopicStats(GetTopicStatsRequest.newBuilder().setTopic("admin-no-such-topic").build()));

    String topic = "admin-lag";
    try (Subscription sub = Subscription.open(broker, topic, "mailer", 10).awaitSubscribed(WAIT)) {
      publish(topic, "due", 0, "");
      publish(topic, "later", HOUR, "");
      sub.next(WAIT); // in flight, not acked
      TopicStats stats = awaitStats(topic, s -> group(s, "mailer").getOldestUnackedDueAgeMs() > 0);
      assertEquals(2, group(stats, "mailer").getLag());
    }
  }

  @Test
  void browsesPendingMessagesInDueOrderPageByPageAndGetsOneByKeyOrId() throws Exception {
    String topic = "admin-browse";
    long now = System.currentTimeMillis();
    List<Long> hours = List.of(5L, 1L, 3L, 2L, 4L);
    for (int i = 0; i < hours.size(); i++) {
      get(broker.producer().publish(request(message(topic, "p" + i, 0).setDeliverAtUnixMs(now + hours.get(i) * HOUR)
          .setKey("k" + i).putHeaders("n", "" + i))));
    }

    ListMessagesResponse first = list(ListMessagesRequest.newBuilder().setTopic(topic).setPageSize(2));
    ListMessagesResponse second = list(ListMessagesRequest.newBuilder().setTopic(topic).setPageSize(2)
        .setPageToken(first.getNextPageToken()));
    ListMessagesResponse last = list(ListMessagesRequest.newBuilder().setTopic(topic).setPageSize(2)
        .setPageToken(second.getNextPageToken()));

    assertEquals(List.of("k1", "k3"), keys(first));
    assertEquals(List.of("k2", "k4"), keys(second));
    assertEquals(List.of("k0"), keys(last));
    assertEquals("", last.getNextPageToken());
    PendingMessage m = first.getMessages(0);
    assertEquals(now + HOUR, m.getDueUnixMs());
    assertEquals(2, m.getSize());
    assertEquals("1", m.getHeadersOrThrow("n"));
    assertTrue(m.getPayload().isEmpty(), "no payload unless asked");
    assertTrue(m.getEnqueuedUnixMs() >= now);
    ListMessagesResponse window = list(ListMessagesRequest.newBuilder().setTopic(topic)
        .setFromUnixMs(now + 2 * HOUR).setToUnixMs(now + 3 * HOUR).setIncludePayload(true));
    assertEquals(List.of("k3", "k2"), keys(window));
    assertEquals("p3", window.getMessages(0).getPayload().toStringUtf8());

    PendingMessage byKey = get(broker.admin().getMessage(GetMessageRequest.newBuilder().setTopic(topic).setKey("k2")
        .setIncludePayload(true).build()));
    assertEquals("p2", byKey.getPayload().toStringUtf8());
    assertEquals(byKey.toBuilder().clearPayload().build(), get(broker.admin().getMessage(GetMessageRequest
        .newBuilder().setTopic(topic).setMessageId(byKey.getMessageId()).build())));
    assertFails(Status.Code.NOT_FOUND, "key 'nope': no pending message on topic admin-browse",
        () -> broker.admin().getMessage(GetMessageRequest.newBuilder().setTopic(topic).setKey("nope").build()));
    assertFails(Status.Code.INVALID_ARGUMENT, "page_size: 1001 is more than the limit of 1000",
        () -> broker.admin().listMessages(ListMessagesRequest.newBuilder().setTopic(topic).setPageSize(1001).build()));
    assertFails(Status.Code.INVALID_ARGUMENT, "to_unix_ms: must be 0 (no end) or at least from_unix_ms",
        () -> broker.admin().listMessages(ListMessagesRequest.newBuilder().setTopic(topic).setFromUnixMs(10)
            .setToUnixMs(5).build()));
    assertFails(Status.Code.NOT_FOUND, "topic: no topic named admin-browse-typo",
        () -> broker.admin().listMessages(ListMessagesRequest.newBuilder().setTopic("admin-browse-typo").build()));
  }

  @Test
  void reschedulingToNowDeliversAtOnceAndRepublishingTheKeyStaysANoOp() throws Exception {
    String topic = "admin-now";
    try (Subscription sub = Subscription.open(broker, topic, "g", 10).awaitSubscribed(WAIT)) {
      String oldId = publish(topic, "cancel order 7", HOUR, "order-7").getMessageIds(0);

      RescheduleMessageResponse moved = get(broker.admin().rescheduleMessage(RescheduleMessageRequest.newBuilder()
          .setTopic(topic).setKey("order-7").build()));

      assertEquals(oldId, moved.getPreviousMessageId());
      assertNotEquals(oldId, moved.getMessageId());
      assertTrue(moved.getDueUnixMs() <= System.currentTimeMillis());
      Subscription.Received delivered = sub.next(WAIT);
      assertEquals(moved.getMessageId(), delivered.delivery().getMessageId());
      PublishResponse again = publish(topic, "other", HOUR, "order-7");
      assertTrue(again.getDuplicate(0));
      assertEquals(moved.getMessageId(), again.getMessageIds(0));
      assertFails(Status.Code.NOT_FOUND, "message_id " + oldId + ": no pending message on topic admin-now",
          () -> broker.admin().rescheduleMessage(RescheduleMessageRequest.newBuilder().setTopic(topic)
              .setMessageId(oldId).build()));
      sub.ack(delivered.delivery());
    }
  }

  @Test
  void aMessageRescheduledLaterIsNotDeliveredAtItsOldDueTime() throws Exception {
    String topic = "admin-later";
    try (Subscription sub = Subscription.open(broker, topic, "g", 10).awaitSubscribed(WAIT)) {
      String id = publish(topic, "soon", 1_500, "k").getMessageIds(0);
      RescheduleMessageResponse moved = get(broker.admin().rescheduleMessage(RescheduleMessageRequest.newBuilder()
          .setTopic(topic).setMessageId(id).setDelayMs(HOUR).build()));

      sub.expectNothing(Duration.ofSeconds(3));
      PendingMessage pending = get(broker.admin().getMessage(GetMessageRequest.newBuilder().setTopic(topic)
          .setKey("k").build()));
      assertEquals(moved.getMessageId(), pending.getMessageId());
      assertEquals(moved.getDueUnixMs(), pending.getDueUnixMs());
    }
  }

  @Test
  void aRescheduleSurvivesARestart() throws Exception {
    Path data = dir.resolve("restart");
    long at = System.currentTimeMillis() + 2 * HOUR;
    RescheduleMessageResponse moved;
    try (TestBroker first = TestBroker.start(data)) {
      get(first.producer.publish(request(message("admin-restart", "x", HOUR).setKey("k"))));
      moved = get(first.admin.rescheduleMessage(RescheduleMessageRequest.newBuilder().setTopic("admin-restart")
          .setKey("k").setDeliverAtUnixMs(at).build()));
    }
    try (TestBroker second = TestBroker.start(data)) {
      ListMessagesResponse all = get(second.admin.listMessages(ListMessagesRequest.newBuilder()
          .setTopic("admin-restart").build()));
      assertEquals(1, all.getMessagesCount());
      assertEquals(moved.getMessageId(), all.getMessages(0).getMessageId());
      assertEquals(at, all.getMessages(0).getDueUnixMs());
    }
  }

  @Test
  void purgeKeepsTheGroupsAndDeletingTheTopicEndsItsStreams() throws Exception {
    String topic = "admin-purge";
    Subscription sub = Subscription.open(broker, topic, "g", 10).awaitSubscribed(WAIT);
    for (int i = 0; i < 3; i++) {
      publish(topic, "m" + i, HOUR, "key-" + i);
    }

    assertEquals(3, get(broker.admin().purgeTopic(PurgeTopicRequest.newBuilder().setTopic(topic).build()))
        .getRemoved());
    TopicStats purged = stats(topic);
    assertEquals(0, purged.getPending());
    assertEquals(List.of("g"), purged.getGroupsList().stream().map(GroupStats::getName).toList());
    assertFalse(publish(topic, "m0 again", HOUR, "key-0").getDuplicate(0), "a purged message's key is free");
    publish(topic, "m4", HOUR, "");

    var deleted = get(broker.admin().deleteTopic(DeleteTopicRequest.newBuilder().setTopic(topic).build()));

    assertEquals(2, deleted.getRemoved());
    assertEquals(List.of("g"), deleted.getGroupsList());
    Status ended = streamStatus(sub);
    assertEquals(Status.Code.NOT_FOUND, ended.getCode(), ended.toString());
    assertEquals("topic admin-purge was deleted", ended.getDescription());
    assertFails(Status.Code.NOT_FOUND, "topic: no topic named admin-purge",
        () -> broker.admin().getTopicStats(GetTopicStatsRequest.newBuilder().setTopic(topic).build()));
    assertFalse(get(broker.admin().listTopics(ListTopicsRequest.getDefaultInstance())).getTopicsList().stream()
        .anyMatch(t -> t.getName().equals(topic)));
  }

  @Test
  void badAdministrationRequestsNameTheField() {
    String topic = "admin-bad";
    get(broker.producer().publish(request(message(topic, "x", HOUR))));
    assertFails(Status.Code.INVALID_ARGUMENT, "delay_ms: must not be negative, got -1",
        () -> broker.admin().rescheduleMessage(RescheduleMessageRequest.newBuilder().setTopic(topic).setKey("k")
            .setDelayMs(-1).build()));
    assertFails(Status.Code.INVALID_ARGUMENT, "delay_ms: due 315532800000ms from now, beyond the maximum delay",
        () -> broker.admin().rescheduleMessage(RescheduleMessageRequest.newBuilder().setTopic(topic).setKey("k")
            .setDelayMs(315_532_800_000L).build()));
    assertFails(Status.Code.INVALID_ARGUMENT, "target: set key or message_id",
        () -> broker.admin().rescheduleMessage(RescheduleMessageRequest.newBuilder().setTopic(topic).build()));
    assertFails(Status.Code.INVALID_ARGUMENT, "message_id: must be 32 hex digits",
        () -> broker.admin().getMessage(GetMessageRequest.newBuilder().setTopic(topic).setMessageId("xyz").build()));
    assertFails(Status.Code.INVALID_ARGUMENT, "group: must not be empty",
        () -> broker.admin().deleteGroup(DeleteGroupRequest.newBuilder().setTopic(topic).build()));
    assertFails(Status.Code.INVALID_ARGUMENT, "topic: character '/'",
        () -> broker.admin().purgeTopic(PurgeTopicRequest.newBuilder().setTopic("a/b").build()));
    assertFails(Status.Code.NOT_FOUND, "topic: no topic named admin-bad-typo",
        () -> broker.admin().deleteTopic(DeleteTopicRequest.newBuilder().setTopic("admin-bad-typo").build()));
  }

  private static PublishResponse publish(String topic, String payload, long delayMs, String key) {
    return get(broker.producer().publish(request(message(topic, payload, delayMs).setKey(key))));
  }

  private static TopicStats stats(String topic) {
    return get(broker.admin().getTopicStats(GetTopicStatsRequest.newBuilder().setTopic(topic).build()));
  }

  /** Acks are written in batches: stats reach the expected state soon, not at once. */
  private static TopicStats awaitStats(String topic, Predicate<TopicStats> expected) {
    return Await.until("the expected stats of " + topic, WAIT, () -> stats(topic), expected);
  }

  private static GroupStats group(TopicStats stats, String name) {
    return stats.getGroupsList().stream().filter(g -> g.getName().equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError("no group " + name + " in " + stats));
  }

  private static ListMessagesResponse list(ListMessagesRequest.Builder request) {
    return get(broker.admin().listMessages(request.build()));
  }

  private static List<String> keys(ListMessagesResponse page) {
    return page.getMessagesList().stream().map(PendingMessage::getKey).toList();
  }

  private static Status streamStatus(Subscription sub) {
    ExecutionException e = assertThrows(ExecutionException.class, () -> sub.done.get(10, TimeUnit.SECONDS));
    return ((StatusRuntimeException) e.getCause()).getStatus();
  }

  private static void assertFails(Status.Code code, String text, Supplier<CompletionStage<?>> call) {
    ExecutionException e = assertThrows(ExecutionException.class,
        () -> call.get().toCompletableFuture().get(10, TimeUnit.SECONDS));
    Status status = ((StatusRuntimeException) e.getCause()).getStatus();
    assertEquals(code, status.getCode(), status.toString());
    assertTrue(status.getDescription().contains(text), status.getDescription());
  }

  private static <T> T get(CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
