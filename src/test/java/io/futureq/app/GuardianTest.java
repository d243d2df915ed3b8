package io.futureq.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The node's root actor and the supervision it chooses: a failed actor is restarted under the same ref after a
 * back-off; one that keeps failing stops the node through its coordinated shutdown, naming the actor; best-effort
 * work just stops. The back-off runs on manual time. Each test has an actor system of its own, as a node does.
 */
class GuardianTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private final ActorTestKit testKit = ActorTestKit.create(ManualTime.config());
  private final ManualTime time = ManualTime.get(testKit.system());
  private final TestProbe<String> starts = testKit.createTestProbe();

  @AfterEach
  void shutdown() {
    testKit.shutdownTestKit();
  }

  /** A worker that tells each start, answers what it is sent, and fails on "crash" (or at start, if told to). */
  private Behavior<String> worker(ActorRef<String> answers, int startsBeforeFailingAtStart) {
    int[] started = {0};
    return Behaviors.setup(ctx -> {
      starts.getRef().tell("started");
      if (++started[0] > startsBeforeFailingAtStart) {
        throw new IllegalStateException("cannot start");
      }
      return Behaviors.receiveMessage(message -> {
        if (message.equals("crash")) {
          throw new IllegalStateException("crashed on purpose");
        }
        answers.tell("answered " + message);
        return Behaviors.same();
      });
    });
  }

  private <T> ActorRef<T> start(ActorRef<Guardian.Command> guardian, String name, Behavior<T> behavior,
      Guardian.OnFailure onFailure) {
    TestProbe<ActorRef<T>> started = testKit.createTestProbe();
    guardian.tell(new Guardian.Start<>(behavior, name, onFailure, started.getRef()));
    return started.receiveMessage(WAIT);
  }

  @Test
  void anActorThatFailsIsRestartedAfterABackOffAndGoesOnUnderTheSameRef() {
    ActorRef<Guardian.Command> guardian = testKit.spawn(Guardian.create());
    TestProbe<String> answers = testKit.createTestProbe();
    ActorRef<String> worker = start(guardian, "worker", worker(answers.getRef(), Integer.MAX_VALUE),
        Guardian.OnFailure.RESTART);
    starts.expectMessage(WAIT, "started");

    worker.tell("crash");
    worker.tell("after the crash");
    starts.expectNoMessage(Duration.ofMillis(50));
    time.timePasses(Guardian.MIN_BACKOFF.multipliedBy(2));
    starts.expectMessage(WAIT, "started");
    answers.expectMessage(WAIT, "answered after the crash");
    assertFalse(testKit.system().whenTerminated().isCompleted(), "the node goes on");
  }

  @Test
  void anActorThatKeepsFailingStopsTheNodeNamingIt() throws Exception {
    ActorRef<Guardian.Command> guardian = testKit.spawn(Guardian.create());
    start(guardian, "write-leader-placement", worker(testKit.<String>createTestProbe().getRef(), 1),
        Guardian.OnFailure.RESTART).tell("crash");
    starts.expectMessage(WAIT, "started");
    for (int restart = 1; restart <= Guardian.MAX_RESTARTS_IN_A_ROW; restart++) {
      time.timePasses(Guardian.MAX_BACKOFF.multipliedBy(2));
      starts.expectMessage(WAIT, "started");
    }

    testKit.system().getWhenTerminated().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    CoordinatedShutdown.Reason reason = CoordinatedShutdown.get(testKit.system()).getShutdownReason().orElseThrow();
    Guardian.ActorFailed failed = assertInstanceOf(Guardian.ActorFailed.class, reason);
    assertEquals("write-leader-placement", failed.actor());
  }

  @Test
  void bestEffortWorkThatFailsJustStopsAndTheNodeGoesOn() {
    ActorRef<Guardian.Command> guardian = testKit.spawn(Guardian.create());
    TestProbe<String> answers = testKit.createTestProbe();
    ActorRef<String> warmUp = start(guardian, "warm-up", worker(answers.getRef(), Integer.MAX_VALUE),
        Guardian.OnFailure.LET_STOP);
    starts.expectMessage(WAIT, "started");
    warmUp.tell("crash");
    answers.expectTerminated(warmUp, WAIT);
    time.timePasses(Guardian.MAX_BACKOFF.multipliedBy(2));
    starts.expectNoMessage(Duration.ofMillis(50));

    ActorRef<String> next = start(guardian, "next", worker(answers.getRef(), Integer.MAX_VALUE),
        Guardian.OnFailure.RESTART);
    next.tell("still served");
    answers.expectMessage(WAIT, "answered still served");
    assertFalse(testKit.system().whenTerminated().isCompleted(), "the node goes on");
  }
}
