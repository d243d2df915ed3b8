package io.futureq.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.log.proto.StoredMessage;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

class SubscriberSessionTest {
  private static final ActorTestKit testKit = ActorTestKit.create();
  private static final Duration WAIT = Duration.ofSeconds(5);

  @AfterAll
  static void shutdown() {
    testKit.shutdownTestKit();
  }

  /** Hands out the groups the test names, in order, and records each join. */
  private static final class Groups implements GroupDirectory {
    final LinkedBlockingQueue<ConsumerGroup.AddConsumer> joins = new LinkedBlockingQueue<>();
    final LinkedBlockingQueue<ActorRef<ConsumerGroup.Command>> next = new LinkedBlockingQueue<>();

    @Override
    public CompletableFuture<ActorRef<ConsumerGroup.Command>> attach(String topic, String group,
        ConsumerGroup.AddConsumer add) {
      joins.add(add);
      return CompletableFuture.completedFuture(next.poll());
    }
  }

  @Test
  void acksNamingTagsBeyondTheLastSentFailTheStream() {
    Groups groups = new Groups();
    TestProbe<ConsumerGroup.Command> group = testKit.createTestProbe();
    groups.next.add(group.ref());
    TestProbe<SubscriberSession.Output> out = testKit.createTestProbe();
    ActorRef<SubscriberSession.Command> session = start(groups, out);
    out.expectMessageClass(SubscriberSession.Subscribed.class, WAIT);
    session.tell(new SubscriberSession.Deliver(List.of(delivery(1), delivery(2))));
    out.expectMessageClass(SubscriberSession.Emit.class, WAIT);

    session.tell(new SubscriberSession.Ack(TagRanges.of(1, 2)));
    assertEquals(TagRanges.of(1, 2), group.expectMessageClass(ConsumerGroup.AckDeliveries.class, WAIT).tags());
    session.tell(new SubscriberSession.Ack(TagRanges.of(2, 3)));

    SubscriberSession.Fail fail = out.expectMessageClass(SubscriberSession.Fail.class, WAIT);
    assertEquals(SubscriberSession.Reason.UNKNOWN_TAG, fail.refusal().reason());
    assertTrue(fail.refusal().message().contains("delivery tag 3"), fail.refusal().message());
    testKit.createTestProbe().expectTerminated(session, WAIT);
    group.expectNoMessage(Duration.ZERO); // stopped: the refused frame's tags are not passed on later either
  }

  /**
   * A client that acks one tag per frame (any gRPC client may) costs the group one message per batch of frames,
   * not one per frame. The frames here wait in the session until its group is attached, so the test knows they
   * are all there when it turns to them, as they are in a busy session's mailbox.
   */
  @Test
  void acksOfFramesWaitingTogetherReachTheGroupAsOneMessageOfRanges() {
    TestProbe<ConsumerGroup.Command> group = testKit.createTestProbe();
    CompletableFuture<ActorRef<ConsumerGroup.Command>> attached = new CompletableFuture<>();
    TestProbe<SubscriberSession.Output> out = testKit.createTestProbe();
    ActorRef<SubscriberSession.Command> session = testKit.spawn(SubscriberSession.create(
        new SubscriberSession.Init("orders", "billing", 10, 4096, Duration.ofMillis(100)),
        (topic, name, add) -> attached, out.ref()));
    session.tell(new SubscriberSession.Deliver(List.of(delivery(1), delivery(2), delivery(3), delivery(4),
        delivery(5), delivery(6))));
    out.expectMessageClass(SubscriberSession.Subscribed.class, WAIT);
    out.expectMessageClass(SubscriberSession.Emit.class, WAIT);

    for (long tag = 1; tag <= 4; tag++) {
      session.tell(new SubscriberSession.Ack(TagRanges.of(tag, tag)));
    }
    session.tell(new SubscriberSession.Ack(TagRanges.of(6, 6)));
    session.tell(new SubscriberSession.Deliver(List.of(delivery(7))));
    out.expectMessageClass(SubscriberSession.Emit.class, WAIT);
    attached.complete(group.ref());

    ConsumerGroup.AckDeliveries ack = group.expectMessageClass(ConsumerGroup.AckDeliveries.class, WAIT);
    assertEquals(new TagRanges(new long[] {1, 4, 6, 6}), ack.tags());
    assertEquals(session, ack.consumer());
    session.tell(new SubscriberSession.StreamEnded()); // passes on any acks still gathered, then closes
    out.expectMessageClass(SubscriberSession.Close.class, WAIT);
    group.expectNoMessage(Duration.ZERO);
  }

  @Test
  void aNackReachesTheGroupAfterTheAcksSentBeforeItAndBeforeThoseAfterIt() {
    TestProbe<ConsumerGroup.Command> group = testKit.createTestProbe();
    CompletableFuture<ActorRef<ConsumerGroup.Command>> attached = new CompletableFuture<>();
    TestProbe<SubscriberSession.Output> out = testKit.createTestProbe();
    ActorRef<SubscriberSession.Command> session = testKit.spawn(SubscriberSession.create(
        new SubscriberSession.Init("orders", "billing", 10, 4096, Duration.ofMillis(100)),
        (topic, name, add) -> attached, out.ref()));
    session.tell(new SubscriberSession.Deliver(List.of(delivery(1), delivery(2), delivery(3))));
    out.expectMessageClass(SubscriberSession.Subscribed.class, WAIT);
    out.expectMessageClass(SubscriberSession.Emit.class, WAIT);

    session.tell(new SubscriberSession.Ack(TagRanges.of(1, 1)));
    session.tell(new SubscriberSession.Nack(TagRanges.of(2, 2), Duration.ZERO));
    session.tell(new SubscriberSession.Ack(TagRanges.of(3, 3)));
    attached.complete(group.ref());

    assertEquals(TagRanges.of(1, 1), group.expectMessageClass(ConsumerGroup.AckDeliveries.class, WAIT).tags());
    assertEquals(TagRanges.of(2, 2), group.expectMessageClass(ConsumerGroup.NackDeliveries.class, WAIT).tags());
    assertEquals(TagRanges.of(3, 3), group.expectMessageClass(ConsumerGroup.AckDeliveries.class, WAIT).tags());
  }

  @Test
  void afterItsGroupIsLostTheSessionRejoinsNumberingOnAndDropsAcksOfTheOldTags() throws InterruptedException {
    Groups groups = new Groups();
    TestProbe<ConsumerGroup.Command> first = testKit.createTestProbe();
    TestProbe<ConsumerGroup.Command> second = testKit.createTestProbe();
    groups.next.add(first.ref());
    groups.next.add(second.ref());
    TestProbe<SubscriberSession.Output> out = testKit.createTestProbe();
    ActorRef<SubscriberSession.Command> session = start(groups, out);
    out.expectMessageClass(SubscriberSession.Subscribed.class, WAIT);
    assertEquals(1, groups.joins.poll(5, TimeUnit.SECONDS).firstTag());
    session.tell(new SubscriberSession.Deliver(List.of(delivery(1), delivery(2), delivery(3))));
    out.expectMessageClass(SubscriberSession.Emit.class, WAIT);

    first.stop();

    ConsumerGroup.AddConsumer rejoin = groups.joins.poll(5, TimeUnit.SECONDS);
    assertEquals(4, rejoin.firstTag());
    // Stale: were it passed on, it would reach the group before the nack below, which sends gathered acks first.
    session.tell(new SubscriberSession.Ack(TagRanges.of(2, 3)));
    session.tell(new SubscriberSession.Deliver(List.of(delivery(4))));
    out.expectMessageClass(SubscriberSession.Emit.class, WAIT);
    session.tell(new SubscriberSession.Nack(TagRanges.of(1, 4), Duration.ofSeconds(1)));
    ConsumerGroup.NackDeliveries nack = second.expectMessageClass(ConsumerGroup.NackDeliveries.class, WAIT);
    assertEquals(TagRanges.of(4, 4), nack.tags());
    assertEquals(Duration.ofSeconds(1), nack.requeueDelay());
  }

  @Test
  void theFirstJoinIsAnnouncedOnceAndARefusalEndsTheStream() {
    Groups groups = new Groups();
    TestProbe<ConsumerGroup.Command> group = testKit.createTestProbe();
    groups.next.add(group.ref());
    TestProbe<SubscriberSession.Output> out = testKit.createTestProbe();
    ActorRef<SubscriberSession.Command> session = start(groups, out);

    SubscriberSession.Subscribed subscribed = out.expectMessageClass(SubscriberSession.Subscribed.class, WAIT);
    assertEquals(new SubscriberSession.Subscribed("orders", "billing", 10, 4096), subscribed);
    SubscriberSession.Refusal refusal = new SubscriberSession.Refusal(SubscriberSession.Reason.OVER_LIMIT, "full");
    session.tell(new SubscriberSession.Refuse(refusal));
    assertEquals(refusal, out.expectMessageClass(SubscriberSession.Fail.class, WAIT).refusal());
  }

  @Test
  void deliveriesThatOvertakeTheAttachReplyStillFollowTheSubscribedFrame() {
    TestProbe<ConsumerGroup.Command> group = testKit.createTestProbe();
    CompletableFuture<ActorRef<ConsumerGroup.Command>> attached = new CompletableFuture<>();
    TestProbe<SubscriberSession.Output> out = testKit.createTestProbe();
    ActorRef<SubscriberSession.Command> session = testKit.spawn(SubscriberSession.create(
        new SubscriberSession.Init("orders", "billing", 10, 4096, Duration.ofMillis(100)),
        (topic, name, add) -> attached, out.ref()));

    // The group took the consumer and delivers its due backlog before the attach reply reaches the session.
    session.tell(new SubscriberSession.Deliver(List.of(delivery(1), delivery(2))));
    assertEquals(new SubscriberSession.Subscribed("orders", "billing", 10, 4096),
        out.expectMessageClass(SubscriberSession.Subscribed.class, WAIT));
    assertEquals(2, out.expectMessageClass(SubscriberSession.Emit.class, WAIT).deliveries().size());
    attached.complete(group.ref());
    session.tell(new SubscriberSession.Deliver(List.of(delivery(3))));
    assertEquals(1, out.expectMessageClass(SubscriberSession.Emit.class, WAIT).deliveries().size());
    session.tell(new SubscriberSession.Ack(TagRanges.of(1, 3)));
    assertEquals(TagRanges.of(1, 3), group.expectMessageClass(ConsumerGroup.AckDeliveries.class, WAIT).tags());
    session.tell(new SubscriberSession.StreamEnded());
    out.expectMessageClass(SubscriberSession.Close.class, WAIT); // next: no second subscribed frame came
  }

  @Test
  void aSessionThatFailsEndsItsStreamAsUnavailable() {
    TestProbe<ConsumerGroup.Command> group = testKit.createTestProbe();
    AtomicInteger joins = new AtomicInteger();
    GroupDirectory breaksOnRejoin = (topic, name, add) -> {
      if (joins.incrementAndGet() > 1) {
        throw new IllegalStateException("directory broken");
      }
      return CompletableFuture.completedFuture(group.ref());
    };
    TestProbe<SubscriberSession.Output> out = testKit.createTestProbe();
    testKit.spawn(Behaviors.supervise(SubscriberSession.create(new SubscriberSession.Init("orders", "billing", 10, 4096,
        Duration.ofMillis(100)), breaksOnRejoin, out.ref())).onFailure(SupervisorStrategy.stop()));
    out.expectMessageClass(SubscriberSession.Subscribed.class, WAIT);

    group.stop();

    SubscriberSession.Fail fail = out.expectMessageClass(SubscriberSession.Fail.class, WAIT);
    assertEquals(SubscriberSession.Reason.UNAVAILABLE, fail.refusal().reason());
  }

  private static ActorRef<SubscriberSession.Command> start(Groups groups, TestProbe<SubscriberSession.Output> out) {
    return testKit.spawn(SubscriberSession.create(new SubscriberSession.Init("orders", "billing", 10, 4096,
        Duration.ofMillis(100)), groups, out.ref()));
  }

  private static GroupDelivery delivery(long tag) {
    return new GroupDelivery(tag, 1, new DueMessage(new byte[] {(byte) tag},
        StoredMessage.newBuilder().setTopic("orders").build()));
  }
}
