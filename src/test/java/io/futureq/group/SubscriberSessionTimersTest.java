package io.futureq.group;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.futureq.log.proto.StoredMessage;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A session's one timer on the test's time: a join that failed (the topic is moving, its node is starting) is
 * tried again after the rejoin delay, until {@link SubscriberSession#MAX_REJOINS} retries have failed. The test
 * answers each join itself, so it knows when the session has its answer.
 */
class SubscriberSessionTimersTest {
  private static final ActorTestKit testKit = ActorTestKit.create(ManualTime.config());
  private static final ManualTime time = ManualTime.get(testKit.system());
  private static final Duration WAIT = Duration.ofSeconds(5);
  private static final Duration REJOIN_DELAY = Duration.ofSeconds(2);
  private static final Duration ONE_MS = Duration.ofMillis(1);
  private static final String MOVING = "topic orders is moving (test)";

  /** A join the session asked for, answered by the test. */
  private record Join(ConsumerGroup.AddConsumer add, CompletableFuture<ActorRef<ConsumerGroup.Command>> answer) {}

  private final TestProbe<Join> joins = testKit.createTestProbe();
  private final TestProbe<SubscriberSession.Output> out = testKit.createTestProbe();
  private ActorRef<SubscriberSession.Command> session;
  private long lastTag;

  @AfterAll
  static void shutdown() {
    testKit.shutdownTestKit();
  }

  @BeforeEach
  void start() {
    GroupDirectory directory = (topic, group, add) -> {
      CompletableFuture<ActorRef<ConsumerGroup.Command>> answer = new CompletableFuture<>();
      joins.ref().tell(new Join(add, answer));
      return answer;
    };
    session = testKit.spawn(SubscriberSession.create(new SubscriberSession.Init("orders", "billing", 10, 4096,
        REJOIN_DELAY), directory, out.ref()));
  }

  @Test
  void aFailedJoinIsRetriedAfterTheRejoinDelayAndNotBeforeAndAcksSentMeanwhileReachTheGroup() {
    refuse(joins.expectMessageClass(Join.class, WAIT));
    long tag = lastTag;
    session.tell(new SubscriberSession.Ack(TagRanges.of(tag, tag)));

    time.timePasses(REJOIN_DELAY.minus(ONE_MS));
    handled();
    joins.expectNoMessage(Duration.ZERO);
    time.timePasses(ONE_MS);

    Join retry = joins.expectMessageClass(Join.class, WAIT);
    TestProbe<ConsumerGroup.Command> group = testKit.createTestProbe();
    retry.answer().complete(group.ref());
    assertEquals(TagRanges.of(tag, tag), group.expectMessageClass(ConsumerGroup.AckDeliveries.class, WAIT).tags());
  }

  @Test
  void aJoinThatKeepsFailingEndsTheStreamAsUnavailableWhenItsLastRetryFails() {
    for (int retry = 0; retry < SubscriberSession.MAX_REJOINS; retry++) {
      refuse(joins.expectMessageClass(Join.class, WAIT));
      time.timePasses(REJOIN_DELAY);
    }
    joins.expectMessageClass(Join.class, WAIT).answer().completeExceptionally(new IllegalStateException(MOVING));

    SubscriberSession.Fail fail = (SubscriberSession.Fail) out.fishForMessage(WAIT,
        o -> o instanceof SubscriberSession.Fail ? FishingOutcomes.complete() : FishingOutcomes.continueAndIgnore())
        .get(0);
    assertEquals(SubscriberSession.Reason.UNAVAILABLE, fail.refusal().reason());
    assertEquals("cannot join group 'billing' of topic orders: " + MOVING, fail.refusal().message());
    testKit.createTestProbe().expectTerminated(session, WAIT);
    time.timePasses(REJOIN_DELAY);
    joins.expectNoMessage(Duration.ZERO);
  }

  /**
   * Answers a join as a directory that cannot reach the topic does, and returns once the session has taken the
   * answer, and so armed its retry. Twice {@link #handled}: the session may register for the answer after it was
   * given, and then takes it only once it is done asking, which the first delivery shows.
   */
  private void refuse(Join join) {
    join.answer().completeExceptionally(new IllegalStateException(MOVING));
    handled();
    handled();
  }

  /**
   * Returns the tag of a delivery passed to the stream once the session has handled what it was sent before: a
   * delivery passes whether or not the session is in its group, and it arms its retry as it handles a failed join,
   * so time must not pass before it has. The stream's subscribed frame, sent with the first, is skipped.
   */
  private long handled() {
    long tag = ++lastTag;
    session.tell(new SubscriberSession.Deliver(List.of(new GroupDelivery(tag, 1,
        new DueMessage(new byte[] {(byte) tag}, StoredMessage.newBuilder().setTopic("orders").build())))));
    out.fishForMessage(WAIT, o -> o instanceof SubscriberSession.Emit e && e.deliveries().get(0).tag() == tag
        ? FishingOutcomes.complete() : FishingOutcomes.continueAndIgnore());
    return tag;
  }
}
