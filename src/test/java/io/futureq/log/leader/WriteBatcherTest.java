package io.futureq.log.leader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.log.CommandResult;
import io.futureq.log.CommandResultCodec;
import io.futureq.log.Commands;
import io.futureq.log.EventLog;
import io.futureq.log.proto.LogCommand;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Group commit in front of the leader: a bounded number of writes in flight per node (one, unless a test says
 * otherwise), everything appended meanwhile goes into the next one, results go back to each caller in order, a
 * refused write goes again first in line. The leader is a probe.
 */
class WriteBatcherTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private ActorTestKit testKit;
  private TestProbe<LogLeader.Command> leader;
  private ActorRef<WriteBatcher.Command> batcher;

  @BeforeEach
  void start() {
    testKit = ActorTestKit.create();
    leader = testKit.createTestProbe();
    list(leaderOf(1, leader));
    batcher = testKit.spawn(WriteBatcher.create(100, 1 << 20, 1, WAIT, 3));
  }

  /** A leader of {@code term} as the placement names it, which hands what it gets to {@code probe}. */
  private ActorRef<LogLeader.Command> leaderOf(long term, TestProbe<LogLeader.Command> probe) {
    return testKit.spawn(Behaviors.receiveMessage(command -> {
      probe.getRef().tell(command);
      return Behaviors.same();
    }), LeaderPlacement.leaderName(term, 0));
  }

  private void list(ActorRef<LogLeader.Command> ref) {
    TestProbe<Receptionist.Registered> registered = testKit.createTestProbe();
    testKit.system().receptionist().tell(Receptionist.register(LogLeader.SERVICE_KEY, ref, registered.getRef()));
    registered.receiveMessage(WAIT);
  }

  @AfterEach
  void stop() {
    testKit.shutdownTestKit();
  }

  private CompletableFuture<CommandResult> append(String payload) {
    CompletableFuture<CommandResult> result = new CompletableFuture<>();
    LogCommand command = Commands.store(Commands.message("t", payload, 0));
    batcher.tell(new WriteBatcher.Append(command, result, command.getSerializedSize()));
    return result;
  }

  private static List<String> payloads(LogLeader.Write write) {
    List<String> out = new ArrayList<>();
    write.commands().getCommandsList().forEach(c -> out.add(c.getStore().getMessages(0).getPayload().toStringUtf8()));
    return out;
  }

  private static LogLeader.Written written(LogLeader.Write write, int commands) {
    List<CommandResult> results = new ArrayList<>();
    for (int i = 0; i < commands; i++) {
      results.add(new CommandResult.NackDelayed("t", "g" + i, i));
    }
    return new LogLeader.Written(write.id(), CommandResultCodec.encode(results));
  }

  @Test
  void appendsMadeWhileAWriteIsInFlightGoIntoTheNextWriteAndEachCallerGetsItsOwnResult() {
    CompletableFuture<CommandResult> first = append("a");
    LogLeader.Write one = leader.expectMessageClass(LogLeader.Write.class, WAIT);
    List<CompletableFuture<CommandResult>> later = List.of(append("b"), append("c"), append("d"));
    leader.expectNoMessage(Duration.ofMillis(100)); // one write in flight

    one.replyTo().tell(written(one, 1));
    LogLeader.Write two = leader.expectMessageClass(LogLeader.Write.class, WAIT);

    assertEquals(List.of("a"), payloads(one));
    assertEquals(List.of("b", "c", "d"), payloads(two));
    assertEquals("g0", ((CommandResult.NackDelayed) first.join()).group());
    two.replyTo().tell(written(two, 3));
    for (int i = 0; i < 3; i++) {
      assertEquals("g" + i, ((CommandResult.NackDelayed) later.get(i).join()).group());
    }
  }

  @Test
  void aFencedWriteGoesAgainFirstInLineAndIsAnsweredOnce() {
    CompletableFuture<CommandResult> first = append("a");
    LogLeader.Write one = leader.expectMessageClass(LogLeader.Write.class, WAIT);
    CompletableFuture<CommandResult> second = append("b");

    one.replyTo().tell(new LogLeader.Fenced(one.id(), 5, 6));
    LogLeader.Write again = leader.expectMessageClass(LogLeader.Write.class, WAIT);

    // As it was, under its id: if it had been sent again after a failover, its first leader may have applied it.
    assertEquals(List.of("a"), payloads(again));
    assertEquals(one.id(), again.id());
    assertFalse(first.isDone());
    again.replyTo().tell(written(again, 1));
    LogLeader.Write then = leader.expectMessageClass(LogLeader.Write.class, WAIT);
    assertEquals(List.of("b"), payloads(then));
    then.replyTo().tell(written(then, 1));
    assertEquals("g0", ((CommandResult.NackDelayed) first.join()).group());
    assertEquals("g0", ((CommandResult.NackDelayed) second.join()).group());
  }

  /**
   * The log may still apply a failed write, or never; the writes after it must not wait behind it for ever (they would
   * be out of order): they go under a new name whose first write is the next id.
   */
  @Test
  void aFailedWriteFailsItsCallersAndLaterWritesGoUnderANewNameNumberedOn() {
    CompletableFuture<CommandResult> first = append("a");
    LogLeader.Write one = leader.expectMessageClass(LogLeader.Write.class, WAIT);

    one.replyTo().tell(new LogLeader.Failed(one.id(), "commit failed: Input/output error", LogLeader.FailureKind.STORAGE));

    Throwable failure = first.handle((r, f) -> f).join();
    assertSame(io.futureq.storage.StorageException.class, failure.getClass());
    leader.expectNoMessage(Duration.ofMillis(100)); // not sent again
    CompletableFuture<CommandResult> second = append("b");
    LogLeader.Write two = leader.expectMessageClass(LogLeader.Write.class, WAIT);
    assertEquals(List.of("b"), payloads(two));
    assertEquals(one.id() + 1, two.id());
    assertEquals(two.id(), two.firstWriteId(), "the new name's writes start here");
    assertFalse(two.writer().equals(one.writer()));
    two.replyTo().tell(written(two, 1));
    assertEquals("g0", ((CommandResult.NackDelayed) second.join()).group());
  }

  /**
   * The write sent again and the next new one go together, in id order: sent after its answer, the new one waited a
   * commit round more, on every failover.
   */
  @Test
  void aWriteTheOldLeaderDidNotAnswerGoesFirstToTheLeaderOfALaterTermUnderItsOwnIdFollowedAtOnceByTheNext() {
    CompletableFuture<CommandResult> first = append("a");
    LogLeader.Write toOld = leader.expectMessageClass(LogLeader.Write.class, WAIT);
    CompletableFuture<CommandResult> second = append("b");
    // The old leader's node crashed: the receptionist still lists it, next to the new term's leader.
    TestProbe<LogLeader.Command> next = testKit.createTestProbe();
    list(leaderOf(2, next));

    LogLeader.Write again = next.expectMessageClass(LogLeader.Write.class, WAIT);
    assertEquals(List.of("a"), payloads(again));
    assertEquals(toOld.id(), again.id(), "the same write, so the log applies it at most once");
    assertEquals(toOld.writer(), again.writer());
    LogLeader.Write then = next.expectMessageClass(LogLeader.Write.class, WAIT);
    assertEquals(List.of("b"), payloads(then));
    assertEquals(again.id() + 1, then.id());
    CompletableFuture<CommandResult> third = append("c");
    next.expectNoMessage(Duration.ofMillis(100)); // one new write in flight
    again.replyTo().tell(written(again, 1));
    then.replyTo().tell(written(then, 1));
    LogLeader.Write last = next.expectMessageClass(LogLeader.Write.class, WAIT);
    assertEquals(List.of("c"), payloads(last));
    last.replyTo().tell(written(last, 1));
    assertEquals("g0", ((CommandResult.NackDelayed) third.join()).group());
    assertEquals("g0", ((CommandResult.NackDelayed) first.join()).group());
    assertEquals("g0", ((CommandResult.NackDelayed) second.join()).group());
    leader.expectNoMessage(Duration.ofMillis(100));
  }

  /**
   * At ACK_LEVEL_LEADER an append is answered once the leader's log has it on disk, with where it will apply. A write
   * sent again may apply where it first went or not at all (AlreadyApplied): neither leader's disk answer may reach
   * it, nor the new write sent behind it. A crash loop saw a producer told an id under which nothing applied: the
   * old leader's late answer, or the new one's, had reached the write sent again.
   */
  @Test
  void writesSentAgainAndTheNewOneBehindThemAreNotAnsweredAtALeadersDisk() {
    CompletableFuture<CommandResult> first = new CompletableFuture<>();
    CompletableFuture<EventLog.LeaderAck> firstOnDisk = new CompletableFuture<>();
    LogCommand command = Commands.store(Commands.message("t", "a", 0));
    batcher.tell(new WriteBatcher.Append(command, first, command.getSerializedSize(), firstOnDisk));
    LogLeader.Write toOld = leader.expectMessageClass(LogLeader.Write.class, WAIT);
    assertNotNull(toOld.onLeaderDisk(), "a first write asks for the disk answer");
    CompletableFuture<CommandResult> second = new CompletableFuture<>();
    CompletableFuture<EventLog.LeaderAck> secondOnDisk = new CompletableFuture<>();
    batcher.tell(new WriteBatcher.Append(command, second, command.getSerializedSize(), secondOnDisk));
    TestProbe<LogLeader.Command> next = testKit.createTestProbe();
    list(leaderOf(2, next));

    LogLeader.Write again = next.expectMessageClass(LogLeader.Write.class, WAIT);
    LogLeader.Write behind = next.expectMessageClass(LogLeader.Write.class, WAIT);
    assertEquals(toOld.id(), again.id());
    assertNull(again.onLeaderDisk(), "a write sent again asks for no disk answer");
    assertNull(behind.onLeaderDisk(), "nor does the new write sent behind it");
    toOld.onLeaderDisk().tell(new LogLeader.OnLeaderDisk(toOld.id(), 7, 0)); // the old leader, late
    again.replyTo().tell(new LogLeader.AlreadyApplied(again.id()));
    behind.replyTo().tell(written(behind, 1));

    assertEquals("g0", ((CommandResult.NackDelayed) second.join()).group());
    assertTrue(first.isCompletedExceptionally());
    assertFalse(firstOnDisk.isDone(), "told a place on the old leader's disk: " + firstOnDisk.getNow(null));
    assertFalse(secondOnDisk.isDone());
  }

  @Test
  void aWriteAnEarlierLeaderHadAppliedFailsItsCallersWithoutResults() {
    CompletableFuture<CommandResult> first = append("a");
    leader.expectMessageClass(LogLeader.Write.class, WAIT);
    TestProbe<LogLeader.Command> next = testKit.createTestProbe();
    list(leaderOf(2, next));
    LogLeader.Write again = next.expectMessageClass(LogLeader.Write.class, WAIT);

    again.replyTo().tell(new LogLeader.AlreadyApplied(again.id()));

    Throwable failure = first.handle((r, f) -> f).join();
    assertSame(io.futureq.log.LogUnavailableException.class, failure.getClass());
    assertTrue(failure.getMessage().contains("applied by an earlier write leader"), failure.getMessage());
  }

  @Test
  void aWriteALeaderRefusedBecauseItResignedGoesToTheLeaderListedNext() {
    CompletableFuture<CommandResult> first = append("a");
    LogLeader.Write one = leader.expectMessageClass(LogLeader.Write.class, WAIT);
    TestProbe<LogLeader.Command> next = testKit.createTestProbe();

    one.replyTo().tell(new LogLeader.NotLeading(one.id()));
    list(leaderOf(2, next));

    LogLeader.Write again = next.expectMessageClass(LogLeader.Write.class, WAIT);
    assertEquals(List.of("a"), payloads(again));
    again.replyTo().tell(written(again, 1));
    assertEquals("g0", ((CommandResult.NackDelayed) first.join()).group());
  }

  @Test
  void aLateAnswerToAWriteWhoseCallersWereAlreadyFailedIsIgnored() {
    CompletableFuture<CommandResult> first = append("a");
    LogLeader.Write one = leader.expectMessageClass(LogLeader.Write.class, WAIT);
    one.replyTo().tell(new LogLeader.Failed(one.id(), "timed out", LogLeader.FailureKind.TIMEOUT));
    CompletableFuture<CommandResult> second = append("b");
    LogLeader.Write two = leader.expectMessageClass(LogLeader.Write.class, WAIT);

    one.replyTo().tell(written(one, 1)); // a duplicate answer naming the first write

    assertFalse(second.isDone(), "the second write is answered by its own answer only");
    two.replyTo().tell(written(two, 1));
    assertEquals("g0", ((CommandResult.NackDelayed) second.join()).group());
    assertTrue(first.isCompletedExceptionally());
  }

  @Test
  void upToWritesInFlightWritesAreSentBeforeTheFirstIsAnsweredInAppendOrder() {
    ActorRef<WriteBatcher.Command> pipelined = testKit.spawn(WriteBatcher.create(100, 1 << 20, 3, WAIT, 3));
    List<CompletableFuture<CommandResult>> results = new ArrayList<>();
    List<LogLeader.Write> writes = sendThree(pipelined, results);
    CompletableFuture<CommandResult> fourth = append(pipelined, "d");
    leader.expectNoMessage(Duration.ofMillis(100)); // three in flight

    assertEquals(List.of(0L, 1L, 2L), writes.stream().map(LogLeader.Write::id).toList());
    assertEquals(List.of(List.of("a"), List.of("b"), List.of("c")), writes.stream().map(WriteBatcherTest::payloads)
        .toList());
    writes.get(0).replyTo().tell(written(writes.get(0), 1));
    LogLeader.Write next = leader.expectMessageClass(LogLeader.Write.class, WAIT);
    assertEquals(List.of("d"), payloads(next));
    assertEquals(3, next.id());
    assertTrue(results.get(0).isDone());
    assertFalse(fourth.isDone());
  }

  /**
   * The first of three pipelined writes is fenced (a stale leader's entry), so the log refuses the two after it as
   * out of order: all three go again once the last is back, together and lowest first, and the new one after them.
   */
  @Test
  void writesRefusedInAPipelineGoAgainTogetherInTheirOrderBeforeNewOnes() {
    ActorRef<WriteBatcher.Command> pipelined = testKit.spawn(WriteBatcher.create(100, 1 << 20, 3, WAIT, 3));
    List<CompletableFuture<CommandResult>> results = new ArrayList<>();
    List<LogLeader.Write> writes = sendThree(pipelined, results);
    writes.get(0).replyTo().tell(new LogLeader.Fenced(0, 4, 5));
    writes.get(1).replyTo().tell(new LogLeader.OutOfOrder(1));
    CompletableFuture<CommandResult> later = append(pipelined, "d");
    leader.expectNoMessage(Duration.ofMillis(100)); // write 2 is still in flight
    writes.get(2).replyTo().tell(new LogLeader.OutOfOrder(2));

    List<LogLeader.Write> again = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      again.add(leader.expectMessageClass(LogLeader.Write.class, WAIT));
      assertEquals(i, again.get(i).id());
      assertEquals(payloads(writes.get(i)), payloads(again.get(i)));
    }
    LogLeader.Write then = leader.expectMessageClass(LogLeader.Write.class, WAIT);
    assertEquals(3, then.id());
    assertEquals(List.of("d"), payloads(then));
    again.forEach(w -> w.replyTo().tell(written(w, 1)));
    results.forEach(r -> assertEquals("g0", ((CommandResult.NackDelayed) r.join()).group()));
    assertFalse(later.isDone());
  }

  /** Appends "a", "b" and "c" to {@code to}, each sent as its own write before any is answered. */
  private List<LogLeader.Write> sendThree(ActorRef<WriteBatcher.Command> to,
      List<CompletableFuture<CommandResult>> results) {
    List<LogLeader.Write> writes = new ArrayList<>();
    for (String payload : List.of("a", "b", "c")) {
      results.add(append(to, payload));
      writes.add(leader.expectMessageClass(LogLeader.Write.class, WAIT));
    }
    return writes;
  }

  private static CompletableFuture<CommandResult> append(ActorRef<WriteBatcher.Command> to, String payload) {
    CompletableFuture<CommandResult> result = new CompletableFuture<>();
    LogCommand command = Commands.store(Commands.message("t", payload, 0));
    to.tell(new WriteBatcher.Append(command, result, command.getSerializedSize()));
    return result;
  }
}
