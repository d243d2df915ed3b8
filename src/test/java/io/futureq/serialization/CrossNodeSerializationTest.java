package io.futureq.serialization;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.ByteString;
import com.typesafe.config.ConfigFactory;
import io.futureq.config.BrokerSettings;
import io.futureq.group.ConsumerGroup;
import io.futureq.group.DeliveryLateness;
import io.futureq.group.DueMessage;
import io.futureq.group.GroupDelivery;
import io.futureq.group.SubscriberSession;
import io.futureq.group.TagRanges;
import io.futureq.log.proto.Header;
import io.futureq.log.proto.StoredMessage;
import io.futureq.topic.GroupBacklog;
import io.futureq.topic.TopicEntity;
import io.futureq.topic.TopicStats;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.pattern.StatusReply;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** Every message that can cross nodes survives a round trip through its configured serializer. */
class CrossNodeSerializationTest {
  static final ActorTestKit testKit = ActorTestKit.create("serialization",
      ConfigFactory.parseString("pekko.actor.provider = local").withFallback(BrokerSettings.load(null, Map.of())));

  @AfterAll
  static void shutdown() {
    testKit.shutdownTestKit();
  }

  private static <T> T roundTrip(T message) {
    return testKit.serializationTestKit().verifySerialization(message, false);
  }

  private static final StoredMessage STORED = StoredMessage.newBuilder().setTopic("t").setKey("k")
      .setPayload(ByteString.copyFromUtf8("p"))
      .addHeaders(Header.newBuilder().setKey("h").setValue("v")).setDueMs(5).setEventId(9).build();

  @Test
  void topicEntityCommandsRoundTrip() {
    TestProbe<SubscriberSession.Command> consumer = testKit.createTestProbe();
    TestProbe<StatusReply<ActorRef<ConsumerGroup.Command>>>
        reply = testKit.createTestProbe();
    TopicEntity.Attach attach = roundTrip(new TopicEntity.Attach("g",
        new ConsumerGroup.AddConsumer(consumer.getRef(), 10, 4096, 7), reply.getRef()));
    assertEquals(new ConsumerGroup.AddConsumer(consumer.getRef(), 10, 4096, 7), attach.add());
    TopicEntity.MessagesStored stored = roundTrip(new TopicEntity.MessagesStored(7,
        List.of(new DueMessage(new byte[] {1, 2, 3}, STORED))));
    assertEquals(7, stored.index());
    assertEquals(STORED, stored.messages().get(0).message());
    assertArrayEquals(new byte[] {1, 2, 3}, stored.messages().get(0).storageKey());
    TopicEntity.MessagesRemoved removed = roundTrip(new TopicEntity.MessagesRemoved(List.of(new byte[] {4})));
    assertArrayEquals(new byte[] {4}, removed.storageKeys().get(0));
    roundTrip(new TopicEntity.Wake());
    TestProbe<StatusReply<TopicStats>> stats = testKit.createTestProbe();
    roundTrip(new TopicEntity.GetStats(stats.getRef()));
  }

  @Test
  void groupCommandsRoundTrip() {
    TestProbe<SubscriberSession.Command> consumer = testKit.createTestProbe();
    assertEquals(new ConsumerGroup.AddConsumer(consumer.getRef(), 5, 4096, 1),
        roundTrip(new ConsumerGroup.AddConsumer(consumer.getRef(), 5, 4096, 1)));
    TagRanges tags = new TagRanges(new long[] {1, 1, 4, 9});
    assertEquals(tags, roundTrip(new ConsumerGroup.AckDeliveries(consumer.getRef(), tags)).tags());
    ConsumerGroup.NackDeliveries nack = roundTrip(new ConsumerGroup.NackDeliveries(consumer.getRef(),
        TagRanges.of(3, 3), Duration.ofMillis(250)));
    assertEquals(Duration.ofMillis(250), nack.requeueDelay());
    assertEquals(TagRanges.of(3, 3), nack.tags());
  }

  @Test
  void sessionCommandsAndStatsRoundTrip() {
    GroupDelivery delivery = new GroupDelivery(12, 3, new DueMessage(new byte[] {1, 2}, STORED));
    GroupDelivery back = roundTrip(new SubscriberSession.Deliver(List.of(delivery))).deliveries().get(0);
    assertEquals(12, back.tag());
    assertEquals(3, back.attempt());
    assertEquals(STORED, back.message().message());
    assertArrayEquals(new byte[] {1, 2}, back.message().storageKey());
    SubscriberSession.Refuse refuse = new SubscriberSession.Refuse(
        new SubscriberSession.Refusal(SubscriberSession.Reason.OVER_LIMIT, "why"));
    assertEquals(refuse, roundTrip(refuse));
    assertEquals(TagRanges.of(2, 5), roundTrip(new SubscriberSession.Ack(TagRanges.of(2, 5))).tags());
    TopicStats stats = new TopicStats("t", 3, 1, 100, 5, List.of(new ConsumerGroup.Stats("g", 1, 2, 3, 4,
        new DeliveryLateness(10, 1, 2, 3, 4, 5))), List.of(new GroupBacklog("g", 7, 250)));
    assertEquals(stats, roundTrip(stats));
    var deleted = new TopicEntity.GroupsDeleted(List.of("g"), "group 'g' of topic t was deleted");
    assertEquals(deleted, roundTrip(deleted));
  }
}
