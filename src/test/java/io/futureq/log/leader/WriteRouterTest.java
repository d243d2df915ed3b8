package io.futureq.log.leader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.log.CommandResult;
import io.futureq.log.Commands;
import io.futureq.log.LogUnavailableException;
import io.futureq.log.WriteQueueLimit;
import io.futureq.log.proto.LogCommand;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A node's router to the write leader, with probes in the leader's place: commands wait while no leader is listed,
 * go to the latest listed, and fail when the leader they were handed to stops before answering. Each test has an
 * actor system of its own: the receptionist of a shared one would still list an earlier test's leaders for a while.
 */
class WriteRouterTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private final ActorTestKit testKit = ActorTestKit.create();

  @AfterEach
  void shutdown() {
    testKit.shutdownTestKit();
  }

  private TestProbe<LogLeader.Command> listedLeader(String name) {
    TestProbe<LogLeader.Command> leader = testKit.createTestProbe(name);
    TestProbe<Receptionist.Registered> registered = testKit.createTestProbe();
    testKit.system().receptionist().tell(Receptionist.register(LogLeader.SERVICE_KEY, leader.getRef(),
        registered.getRef()));
    registered.receiveMessage(WAIT);
    return leader;
  }

  private static CompletableFuture<CommandResult> append(ActorRef<WriteRouter.Command> router, String payload) {
    CompletableFuture<CommandResult> result = new CompletableFuture<>();
    LogCommand command = Commands.store(Commands.message("t", payload, 0));
    router.tell(new LogLeader.Append(command, command.getSerializedSize(), result, null));
    return result;
  }

  @Test
  void commandsWaitUntilALeaderIsListedThenGoToItInOrderWithTheirCallersFutures() {
    ActorRef<WriteRouter.Command> router = testKit.spawn(WriteRouter.create());
    CompletableFuture<CommandResult> first = append(router, "a");
    CompletableFuture<CommandResult> second = append(router, "b");

    TestProbe<LogLeader.Command> leader = listedLeader("leader-0000000000000000001-0");

    LogLeader.Append a = leader.expectMessageClass(LogLeader.Append.class, WAIT);
    LogLeader.Append b = leader.expectMessageClass(LogLeader.Append.class, WAIT);
    assertEquals("a", a.command().getStore().getMessages(0).getPayload().toStringUtf8());
    assertEquals("b", b.command().getStore().getMessages(0).getPayload().toStringUtf8());
    a.result().complete(new CommandResult.Stored(List.of()));
    assertTrue(first.isDone(), "the leader answers the caller directly");
    assertFalse(second.isDone());
  }

  @Test
  void theLeaderOfTheLatestTermGetsTheCommandsWhenTwoAreListed() {
    TestProbe<LogLeader.Command> old = listedLeader("leader-0000000000000000004-0");
    TestProbe<LogLeader.Command> latest = listedLeader("leader-0000000000000000005-0");
    ActorRef<WriteRouter.Command> router = testKit.spawn(WriteRouter.create());

    append(router, "a");

    assertEquals("a", latest.expectMessageClass(LogLeader.Append.class, WAIT).command().getStore()
        .getMessages(0).getPayload().toStringUtf8());
    old.expectNoMessage(Duration.ofMillis(100));
  }

  @Test
  void commandsHandedToALeaderThatStopsBeforeWritingThemFailAsNotApplied() {
    ActorRef<WriteRouter.Command> router = testKit.spawn(WriteRouter.create());
    TestProbe<LogLeader.Command> leader = listedLeader("leader-0000000000000000002-0");
    CompletableFuture<CommandResult> pending = append(router, "a");
    leader.expectMessageClass(LogLeader.Append.class, WAIT);

    leader.stop();

    ExecutionException failed = assertThrows(ExecutionException.class,
        () -> pending.get(WAIT.toSeconds(), TimeUnit.SECONDS));
    assertInstanceOf(LogUnavailableException.class, failed.getCause());
    assertTrue(failed.getCause().getMessage().contains("not applied"), failed.getCause().getMessage());
  }

  @Test
  void writersHandTheirCommandsToALeaderOfThisNodeThemselvesOnceTheRouterListsIt()
      throws Exception {
    LeaderLane lane = new LeaderLane();
    ActorRef<WriteRouter.Command> router = testKit.spawn(WriteRouter.create(0, lane));
    LogWriter writer = new LogWriter(null, router, lane, new WriteQueueLimit(100, 1 << 20),
        Long.MAX_VALUE, WAIT);
    CompletableFuture<CommandResult> beforeALeader = writer.append(Commands.store(Commands.message("t", "a", 0)))
        .toCompletableFuture();
    TestProbe<LogLeader.Command> leader = listedLeader("leader-0000000000000000003-0");
    assertEquals("a", leader.expectMessageClass(LogLeader.Append.class, WAIT).command().getStore().getMessages(0)
        .getPayload().toStringUtf8(), "the router hands on what waited for a leader");

    // The router opens the lane in the handling that handed "a" on, so once it has stopped the lane is open; and with
    // the router stopped, what the leader gets next came through the lane.
    testKit.stop(router);
    CompletableFuture<CommandResult> direct = writer.append(Commands.store(Commands.message("t", "b", 0)))
        .toCompletableFuture();
    assertEquals("b", leader.expectMessageClass(LogLeader.Append.class, WAIT).command().getStore().getMessages(0)
        .getPayload().toStringUtf8());
    assertFalse(direct.isDone());
    assertFalse(beforeALeader.isDone());
  }

  @Test
  void aCommandAWriterHandedToALeaderOfThisNodeThatThenStopsFailsAsNotApplied() throws Exception {
    LeaderLane lane = new LeaderLane();
    ActorRef<WriteRouter.Command> router = testKit.spawn(WriteRouter.create(0, lane));
    LogWriter writer = new LogWriter(null, router, lane, new WriteQueueLimit(100, 1 << 20),
        Long.MAX_VALUE, WAIT);
    TestProbe<LogLeader.Command> leader = listedLeader("leader-0000000000000000004-0");
    CompletableFuture<CommandResult> first = writer.append(Commands.store(Commands.message("t", "a", 0)))
        .toCompletableFuture();
    leader.expectMessageClass(LogLeader.Append.class, WAIT);
    List<CompletableFuture<CommandResult>> later = new ArrayList<>();
    for (int i = 0; i < 20; i++) { // some through the lane once it opens, some through the router before
      later.add(writer.append(Commands.store(Commands.message("t", "x" + i, 0))).toCompletableFuture());
    }
    for (int i = 0; i < 20; i++) {
      leader.expectMessageClass(LogLeader.Append.class, WAIT);
    }

    leader.stop();

    later.add(first);
    for (CompletableFuture<CommandResult> pending : later) {
      ExecutionException failed = assertThrows(ExecutionException.class,
          () -> pending.get(WAIT.toSeconds(), TimeUnit.SECONDS));
      assertInstanceOf(LogUnavailableException.class, failed.getCause());
      assertTrue(failed.getCause().getMessage().contains("not applied"), failed.getCause().getMessage());
    }
  }
}
