package io.futureq.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.futureq.api.grpc.AckLevel;
import io.futureq.api.grpc.GetMessageRequest;
import io.futureq.api.grpc.Message;
import io.futureq.api.grpc.PendingMessage;
import io.futureq.api.grpc.PublishRequest;
import io.futureq.api.grpc.PublishResponse;
import io.futureq.e2e.TestBroker;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Publish rate limits per principal against a real broker: refused whole, nothing of a refused request stored. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RateLimitE2ETest {
  private static final String LIMITED = TokenHash.newToken();
  private static final String BYTEY = TokenHash.newToken();
  private TestBroker broker;

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    Path access = Files.writeString(dir.resolve("access"), String.join("\n",
        "token limited " + TokenHash.of(LIMITED), "grant limited produce *", "grant limited admin *",
        "limit limited 5 0",
        "token bytey " + TokenHash.of(BYTEY), "grant bytey produce *", "", ""));
    broker = TestBroker.start(dir.resolve("data"), Map.of(
        "futureq.security.auth.enabled", true,
        "futureq.security.auth.access-file", access.toString(),
        // bytey has no limit line: it gets the default
        "futureq.security.rate-limit.bytes-per-second", 300));
  }

  @AfterAll
  void stop() {
    broker.close();
  }

  @Test
  void aPublishOverTheMessageRateIsRefusedWholeAndWhatWasAcceptedIsStored() throws Exception {
    Status tooBig = refused(LIMITED, request("big", 6, 1));
    assertEquals(Status.Code.RESOURCE_EXHAUSTED, tooBig.getCode());
    assertTrue(tooBig.getDescription().contains("principal 'limited' is 5 messages/s, and this request alone has "
        + "6 messages"), tooBig.getDescription());

    // One second's worth (5) fits the full bucket; the next 5 at once do not (they would need a second to refill).
    assertEquals(5, publish(LIMITED, request("ok", 5, 1)).getMessageIdsCount());
    Status over = refused(LIMITED, request("over", 5, 1));
    assertEquals(Status.Code.RESOURCE_EXHAUSTED, over.getCode());
    assertTrue(over.getDescription().contains("publish rate limit of principal 'limited' exceeded: 5 messages/s"),
        over.getDescription());

    for (int i = 0; i < 5; i++) {
      assertEquals("ok-" + i, get("ok-" + i).getKey(), "accepted, so stored");
      String key = "over-" + i;
      StatusRuntimeException missing = assertThrows(StatusRuntimeException.class, () -> get(key));
      assertEquals(Status.Code.NOT_FOUND, missing.getStatus().getCode(), "refused, so nothing of it stored");
    }
  }

  @Test
  void theDefaultByteRateAppliesToAPrincipalWithoutItsOwn() throws Exception {
    Status refused = refused(BYTEY, request("bytes", 1, 400));
    assertEquals(Status.Code.RESOURCE_EXHAUSTED, refused.getCode());
    assertTrue(refused.getDescription().contains("principal 'bytey' is 300 bytes/s"), refused.getDescription());
    assertEquals(1, publish(BYTEY, request("small", 1, 10)).getMessageIdsCount());
  }

  private static PublishRequest request(String keyPrefix, int messages, int payloadBytes) {
    PublishRequest.Builder request = PublishRequest.newBuilder().setRequestId(keyPrefix)
        .setAckLevel(AckLevel.ACK_LEVEL_LEADER);
    for (int i = 0; i < messages; i++) {
      request.addMessages(Message.newBuilder().setTopic("rated").setKey(keyPrefix + "-" + i).setDelayMs(3_600_000)
          .setPayload(ByteString.copyFrom(new byte[payloadBytes])));
    }
    return request.build();
  }

  private PublishResponse publish(String token, PublishRequest request) throws Exception {
    return broker.producer.publish().addHeader("authorization", "Bearer " + token).invoke(request)
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private Status refused(String token, PublishRequest request) {
    ExecutionException e = assertThrows(ExecutionException.class, () -> publish(token, request));
    assertTrue(e.getCause() instanceof StatusRuntimeException, String.valueOf(e.getCause()));
    return ((StatusRuntimeException) e.getCause()).getStatus();
  }

  private PendingMessage get(String key) throws Exception {
    try {
      return broker.admin.getMessage().addHeader("authorization", "Bearer " + LIMITED)
          .invoke(GetMessageRequest.newBuilder().setTopic("rated").setKey(key).build())
          .toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw (Exception) e.getCause();
    }
  }
}
