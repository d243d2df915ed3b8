package io.futureq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.ByteString;
import io.futureq.api.grpc.GroupStats;
import io.futureq.api.grpc.Lateness;
import io.futureq.api.grpc.ListTopicsResponse;
import io.futureq.api.grpc.PendingMessage;
import io.futureq.api.grpc.TopicStats;
import io.futureq.api.grpc.TopicSummary;
import org.junit.jupiter.api.Test;

/** The CLI's {@code --json} objects, field for field and in order, as scripts read them. */
class JsonTest {
  private static final String CONTROL = "a\"b\\c\n\r\t\u0001\u001f é ☃";
  private static final String CONTROL_JSON = "\"a\\\"b\\\\c\\n\\r\\t\\u0001\\u001F é ☃\"";

  @Test
  void pendingMessagesEscapeQuotesBackslashesAndControlCharacters() {
    PendingMessage m = PendingMessage.newBuilder().setMessageId("00ff").setKey(CONTROL).setDueUnixMs(5)
        .setEnqueuedUnixMs(4).setSize(3).putHeaders("k", "v").putHeaders("q\"", "")
        .setPayload(ByteString.copyFromUtf8(CONTROL)).build();

    assertEquals("{\"message_id\":\"00ff\",\"key\":" + CONTROL_JSON + ",\"due_at_unix_ms\":5,"
        + "\"enqueued_at_unix_ms\":4,\"expire_at_unix_ms\":0,\"size\":3,\"headers\":{\"k\":\"v\",\"q\\\"\":\"\"},"
        + "\"payload\":" + CONTROL_JSON + "}", PendingMessages.json(m, true).toString());
    assertEquals("{\"message_id\":\"00ff\",\"key\":\"\",\"due_at_unix_ms\":0,\"enqueued_at_unix_ms\":0,"
        + "\"expire_at_unix_ms\":0,\"size\":0,\"headers\":{}}",
        PendingMessages.json(PendingMessage.newBuilder().setMessageId("00ff").build(), false).toString());
    assertEquals(CONTROL_JSON, PendingMessages.payload(m), "the text view quotes the payload as JSON does");
  }

  @Test
  void aPayloadThatIsNotUtf8IsBase64() {
    PendingMessage m = PendingMessage.newBuilder().setMessageId("00ff")
        .setPayload(ByteString.copyFrom(new byte[] {(byte) 0xff, 0})).build();

    assertEquals("{\"message_id\":\"00ff\",\"key\":\"\",\"due_at_unix_ms\":0,\"enqueued_at_unix_ms\":0,"
        + "\"expire_at_unix_ms\":0,\"size\":0,\"headers\":{},\"payload_b64\":\"/wA=\"}",
        PendingMessages.json(m, true).toString());
  }

  @Test
  void topicStatsWriteNoneAsNullAndGroupsInOrder() {
    TopicStats stats = TopicStats.newBuilder().setTopic("t").setPending(7).setDueNow(2).setNextDueUnixMs(0)
        .setOldestDueAgeMs(12)
        .addGroups(GroupStats.newBuilder().setName("g").setConsumers(1).setInFlight(2).setReady(3).setDelayed(4)
            .setLag(5).setOldestUnackedDueAgeMs(6).setLateness(Lateness.newBuilder().setDeliveries(9).setP50Us(1)
                .setP90Us(2).setP99Us(3).setP999Us(4).setMaxUs(5)))
        .addGroups(GroupStats.newBuilder().setName("")).build();

    assertEquals("{\"topic\":\"t\",\"pending\":7,\"due_now\":2,\"next_due_unix_ms\":null,\"oldest_due_age_ms\":12,"
        + "\"groups\":[{\"name\":\"g\",\"consumers\":1,\"in_flight\":2,\"ready\":3,\"delayed\":4,\"lag\":5,"
        + "\"oldest_unacked_due_age_ms\":6,\"lateness_us\":{\"deliveries\":9,\"p50\":1,\"p90\":2,\"p99\":3,"
        + "\"p99_9\":4,\"max\":5}},{\"name\":\"\",\"consumers\":0,\"in_flight\":0,\"ready\":0,\"delayed\":0,"
        + "\"lag\":0,\"oldest_unacked_due_age_ms\":null,\"lateness_us\":{\"deliveries\":0,\"p50\":0,\"p90\":0,"
        + "\"p99\":0,\"p99_9\":0,\"max\":0}}]}", StatsCommand.json(stats).toString());
  }

  @Test
  void theTopicListNamesEachTopicsGroups() {
    ListTopicsResponse topics = ListTopicsResponse.newBuilder()
        .addTopics(TopicSummary.newBuilder().setName("a").setPending(1).addGroups("g1").addGroups("g2"))
        .addTopics(TopicSummary.newBuilder().setName("b")).build();

    assertEquals("{\"topics\":[{\"name\":\"a\",\"pending\":1,\"groups\":[\"g1\",\"g2\"]},"
        + "{\"name\":\"b\",\"pending\":0,\"groups\":[]}]}", StatsCommand.json(topics).toString());
    assertEquals("{\"topics\":[]}", StatsCommand.json(ListTopicsResponse.getDefaultInstance()).toString());
  }
}
