package io.futureq.log.leader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.futureq.journal.JournalBackend;
import io.futureq.log.BrokerStateMachine;
import io.futureq.log.CommandResult;
import io.futureq.log.Commands;
import io.futureq.log.TestLog;
import io.futureq.log.proto.LogCommand;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The placement on the FutureQ journal over a real standalone log: restarted after a failure (with back-off, as
 * the node's guardian restarts it), it asks anew whether this node leads and runs the leader again, so the node
 * goes on writing; and a leader that stops while its term still leads here is started again after
 * {@code RESTART_PAUSE}, on the test's time ({@code ManualTime}).
 */
class LeaderPlacementTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  @TempDir
  Path dir;

  private ActorTestKit testKit;
  private TestLog testLog;

  @AfterEach
  void close() {
    testKit.shutdownTestKit();
    testLog.close();
  }

  @Test
  void aPlacementRestartedAfterAFailureLearnsThatThisNodeLeadsAndWritesGoOn() throws Exception {
    testKit = ActorTestKit.create(LogLeaderTest.config());
    testLog = TestLog.open(dir, 1000, store -> store);
    JournalBackend.get(testKit.system()).bind(testLog.log(), testLog.store());
    AtomicInteger subscriptions = new AtomicInteger();
    LeaderPlacement.Leadership failsOnce = (leads, follows) -> {
      if (subscriptions.incrementAndGet() == 1) {
        throw new IllegalStateException("the Raft replica could not be asked");
      }
      leads.accept(BrokerStateMachine.STANDALONE_TERM);
    };
    testKit.spawn(Behaviors.supervise(LeaderPlacement.create(failsOnce, 1000, 1L << 30))
        .onFailure(SupervisorStrategy.restartWithBackoff(Duration.ofMillis(10), Duration.ofMillis(100), 0)),
        "log-leaders");
    ActorRef<WriteRouter.Command> router = testKit.spawn(WriteRouter.create(), "log-writer");

    CompletableFuture<CommandResult> result = new CompletableFuture<>();
    LogCommand command = Commands.store(Commands.message("t", "after the restart", 0));
    router.tell(new LogLeader.Append(command, command.getSerializedSize(), result, null));

    CommandResult.Stored stored = (CommandResult.Stored) result.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertEquals(1, stored.messages().size());
    assertEquals(2, subscriptions.get(), "subscribed again on restart");
    assertEquals(1, testLog.messagesOf("t").size());
  }

  @Test
  void aLeaderThatStopsWhileItsTermLeadsHereIsStartedAgainAfterThePauseAndNotBefore() throws Exception {
    testKit = ActorTestKit.create(ManualTime.config().withFallback(LogLeaderTest.config()));
    ManualTime time = ManualTime.get(testKit.system());
    testLog = TestLog.open(dir, 1000, store -> store);
    JournalBackend.get(testKit.system()).bind(testLog.log(), testLog.store());
    TestProbe<Receptionist.Listing> leaders = testKit.createTestProbe();
    testKit.system().receptionist().tell(Receptionist.subscribe(LogLeader.SERVICE_KEY, leaders.getRef()));
    testKit.spawn(LeaderPlacement.create(LeaderPlacement.Leadership.always(BrokerStateMachine.STANDALONE_TERM),
        1000, 1L << 30), "log-leaders");
    ActorRef<LogLeader.Command> first = leaders.fishForMessage(WAIT, listing -> listing.getServiceInstances(
        LogLeader.SERVICE_KEY).isEmpty() ? FishingOutcomes.continueAndIgnore() : FishingOutcomes.complete())
        .get(0).getServiceInstances(LogLeader.SERVICE_KEY).iterator().next();

    first.tell(new LogLeader.Resign()); // as when the log fails its entry: it stops, its term still leads here
    leaders.fishForMessage(WAIT, listing -> listing.getServiceInstances(LogLeader.SERVICE_KEY).isEmpty()
        ? FishingOutcomes.complete() : FishingOutcomes.continueAndIgnore());
    time.timePasses(LeaderPlacement.RESTART_PAUSE.minusMillis(1));
    leaders.expectNoMessage(Duration.ofMillis(200));
    time.timePasses(Duration.ofMillis(1));
    ActorRef<LogLeader.Command> second = leaders.expectMessageClass(Receptionist.Listing.class, WAIT)
        .getServiceInstances(LogLeader.SERVICE_KEY).iterator().next();
    assertNotEquals(first, second);

    ActorRef<WriteRouter.Command> router = testKit.spawn(WriteRouter.create(), "log-writer");
    CompletableFuture<CommandResult> result = new CompletableFuture<>();
    LogCommand command = Commands.store(Commands.message("t", "after the pause", 0));
    router.tell(new LogLeader.Append(command, command.getSerializedSize(), result, null));
    assertEquals(1, ((CommandResult.Stored) result.get(WAIT.toSeconds(), TimeUnit.SECONDS)).messages().size());
  }
}
