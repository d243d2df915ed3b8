package io.futureq.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.ByteString;
import io.futureq.api.grpc.Delivery;
import io.futureq.api.grpc.DeliveryFrame;
import io.futureq.group.DueMessage;
import io.futureq.group.GroupDelivery;
import io.futureq.group.SubscriberSession;
import io.futureq.log.proto.StoredMessage;
import io.futureq.storage.StorageKeys;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ConsumerFramesTest {
  private final AtomicLong now = new AtomicLong(10_000);
  private final ConsumerFrames frames = new ConsumerFrames(Duration.ofDays(1), now::get);

  /**
   * Issue 27, N3: a node that carried a consumer's stream but not the topic was stopped for 3 s with a delivery on
   * its way, and handed it over after the message's TTL, after its key had been taken by a new message.
   */
  @Test
  void aDeliveryWhoseTtlPassedBeforeItLeavesIsNotSentAndItsTagIsSkipped() {
    List<GroupDelivery> held = List.of(delivery(1, "no ttl", 0), delivery(2, "expired", 9_999),
        delivery(3, "expires now", 10_000), delivery(4, "still alive", 10_001));

    List<DeliveryFrame> sent = frames.frames(new SubscriberSession.Emit(held));

    assertEquals(1, sent.size());
    assertEquals(List.of(1L, 4L), sent.get(0).getDeliveriesList().stream().map(Delivery::getDeliveryTag).toList());
    assertEquals("still alive", sent.get(0).getDeliveries(1).getPayload().toStringUtf8());
    now.set(0);
    assertEquals(4, frames.frames(new SubscriberSession.Emit(held)).get(0).getDeliveriesCount(), "none expired yet");
  }

  @Test
  void anEmitWhoseDeliveriesAllExpiredSendsNoFrame() {
    assertEquals(List.of(), frames.frames(new SubscriberSession.Emit(List.of(delivery(1, "gone", 5_000)))));
  }

  private static GroupDelivery delivery(long tag, String payload, long expireMs) {
    StoredMessage message = StoredMessage.newBuilder().setPayload(ByteString.copyFromUtf8(payload)).setDueMs(1_000)
        .setExpireMs(expireMs).build();
    return new GroupDelivery(tag, 1, new DueMessage(StorageKeys.message(7, 1_000, tag), message));
  }
}
