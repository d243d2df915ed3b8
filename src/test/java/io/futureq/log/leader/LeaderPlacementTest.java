package io.futureq.log.leader;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The placement on the FutureQ journal over a real standalone log: restarted after a failure (with back-off, as
 * the node's guardian restarts it), it asks anew whether this node leads and runs the leader again, so the node
 * goes on writing.
 */
class LeaderPlacementTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  @TempDir
  Path dir;

  private final ActorTestKit testKit = ActorTestKit.create(LogLeaderTest.config());
  private TestLog testLog;

  @AfterEach
  void close() {
    testKit.shutdownTestKit();
    testLog.close();
  }

  @Test
  void aPlacementRestartedAfterAFailureLearnsThatThisNodeLeadsAndWritesGoOn() throws Exception {
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
}
