package io.futureq.log.leader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.log.CommandResult;
import io.futureq.log.CommandResultCodec;
import io.futureq.log.Commands;
import io.futureq.log.proto.LogEntry;
import io.futureq.storage.StorageException;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The leader's command handling on Pekko's in-memory journal: one Write is one event, carrying the leader sequence
 * number; the reply is what the journal reports on the entry. The FutureQ journal completes that outcome; here the
 * test plays it.
 */
class LogLeaderTest {
  private static final ActorTestKit TEST_KIT = ActorTestKit.create(EventSourcedBehaviorTestKit.config());

  private EventSourcedBehaviorTestKit<LogLeader.Command, LogLeader.EntryPersisted, LogLeader.State> leader;
  private TestProbe<LogLeader.WriteOutcome> replies;

  @AfterAll
  static void shutdown() {
    TEST_KIT.shutdownTestKit();
  }

  @BeforeEach
  void start() {
    // The event holds the outcome future and is never serialized: the FutureQ journal writes the entry alone.
    leader = EventSourcedBehaviorTestKit.create(TEST_KIT.system(), LogLeader.create(Duration.ofMillis(10)),
        EventSourcedBehaviorTestKit.disabledSerializationSettings());
    leader.clear();
    replies = TEST_KIT.createTestProbe();
  }

  private static LogEntry entry(String... payloads) {
    LogEntry.Builder entry = LogEntry.newBuilder();
    for (String p : payloads) {
      entry.addCommands(Commands.store(Commands.message("t", p, 0)));
    }
    return entry.build();
  }

  private long writes;

  private LogLeader.EntryPersisted write(LogEntry commands) {
    var result = leader.runCommand(new LogLeader.Write("w", ++writes, commands, replies.getRef()));
    assertEquals(1, result.events().size(), "one write, one event");
    return result.event();
  }

  private static CommandResult.LeaderEntryApplied applied(long sequenceNr, int commands) {
    List<CommandResult> results = java.util.Collections.nCopies(commands, new CommandResult.Stored(List.of()));
    return new CommandResult.LeaderEntryApplied(sequenceNr, CommandResult.Verdict.APPLIED, sequenceNr, results);
  }

  private static CommandResult.LeaderEntryApplied fenced(long sequenceNr, long appliedSequenceNr) {
    return new CommandResult.LeaderEntryApplied(sequenceNr, CommandResult.Verdict.FENCED, appliedSequenceNr,
        List.of());
  }

  /** The next event persisted after those taken already: a write taken from the stash persists outside runCommand. */
  private LogLeader.EntryPersisted nextPersisted() {
    return leader.persistenceTestKit().expectNextPersistedClass(LogLeader.PERSISTENCE_ID,
        LogLeader.EntryPersisted.class);
  }

  @Test
  void aWriteIsOneEventWithAllItsCommandsAndTheNextLeaderSequenceNumber() {
    LogEntry commands = entry("a", "b", "c");
    LogLeader.EntryPersisted event = write(commands);

    assertEquals(1, event.leaderSequenceNr());
    assertEquals(commands, event.commands());
    replies.expectNoMessage(Duration.ofMillis(50)); // not before the log applied it
    event.outcome().complete(applied(1, 3));
    LogLeader.Written written = replies.expectMessageClass(LogLeader.Written.class);
    assertEquals(3, CommandResultCodec.decode(written.results()).size());
    assertEquals(1, written.writeId(), "the answer names the write");
    assertEquals(2, write(entry("d")).leaderSequenceNr());
  }

  @Test
  void aFencedEntryIsAnsweredFencedAndTheNextOneContinuesAfterTheLogsNumber() {
    LogLeader.EntryPersisted event = write(entry("a"));
    event.outcome().complete(fenced(1, 7));

    LogLeader.Fenced fenced = replies.expectMessageClass(LogLeader.Fenced.class);
    assertEquals(1, fenced.sequenceNr());
    assertEquals(7, fenced.appliedSequenceNr());
    assertEquals(8, write(entry("b")).leaderSequenceNr());
  }

  @Test
  void anEntryTheLogRefusedIsAnsweredWithItsKindAndItsNumberIsUsedAgain() {
    LogLeader.EntryPersisted event = write(entry("a"));
    event.outcome().completeExceptionally(new StorageException("write failed: No space left on device", null));

    LogLeader.Failed failed = replies.expectMessageClass(LogLeader.Failed.class);
    assertEquals(LogLeader.FailureKind.STORAGE, failed.kind());
    assertInstanceOf(StorageException.class, failed.toException());
    assertTrue(failed.toException().getMessage().contains("No space left"));
    assertEquals(1, write(entry("b")).leaderSequenceNr());
  }

  @Test
  void writesArePersistedWhileEarlierEntriesAreInFlightAndAnsweredAsEachIsApplied() {
    LogLeader.EntryPersisted first = write(entry("a"));
    LogLeader.EntryPersisted second = write(entry("b", "c"));
    LogLeader.EntryPersisted third = write(entry("d"));

    assertEquals(List.of(1L, 2L, 3L), List.of(first.leaderSequenceNr(), second.leaderSequenceNr(),
        third.leaderSequenceNr()), "each write persisted before the one before it was applied");
    first.outcome().complete(applied(1, 1));
    second.outcome().complete(applied(2, 2));
    assertEquals(1, replies.expectMessageClass(LogLeader.Written.class).writeId());
    assertEquals(2, replies.expectMessageClass(LogLeader.Written.class).writeId());
    replies.expectNoMessage(Duration.ofMillis(50));
    third.outcome().complete(applied(3, 1));
    assertEquals(3, replies.expectMessageClass(LogLeader.Written.class).writeId());
  }

  @Test
  void afterAFencedEntryNothingIsPersistedUntilTheEntriesInFlightAreBackThenNumbersContinueAfterTheLogs() {
    LogLeader.EntryPersisted first = write(entry("a"));
    LogLeader.EntryPersisted second = write(entry("b"));
    nextPersisted();
    nextPersisted();
    first.outcome().complete(fenced(1, 7));
    assertEquals(LogLeader.Fenced.class, replies.receiveMessage().getClass());

    var held = leader.runCommand(new LogLeader.Write("w", ++writes, entry("c"), replies.getRef()));
    assertTrue(held.events().isEmpty(), "its successor in flight will be fenced too: nothing is numbered meanwhile");
    second.outcome().complete(fenced(2, 9));
    assertEquals(LogLeader.Fenced.class, replies.receiveMessage().getClass());

    LogLeader.EntryPersisted third = nextPersisted();
    assertEquals(10, third.leaderSequenceNr(), "after the last number the log reported applied");
    assertEquals(List.of("c"), List.of(third.commands().getCommands(0).getStore().getMessages(0).getPayload()
        .toStringUtf8()));
  }

  @Test
  void writesBeyondTheInFlightBoundWaitForAnEntryToComeBack() {
    leader = EventSourcedBehaviorTestKit.create(TEST_KIT.system(), LogLeader.create(Duration.ofMillis(10), null, 2),
        EventSourcedBehaviorTestKit.disabledSerializationSettings());
    leader.clear();
    LogLeader.EntryPersisted first = write(entry("a"));
    write(entry("b"));
    nextPersisted();
    nextPersisted();

    var held = leader.runCommand(new LogLeader.Write("w", ++writes, entry("c"), replies.getRef()));

    assertTrue(held.events().isEmpty(), "two in flight already");
    first.outcome().complete(applied(1, 1));
    assertEquals(3, nextPersisted().leaderSequenceNr());
  }

  @Test
  void aRestartedLeaderContinuesFromTheRecoveredSequenceNumber() {
    write(entry("a")).outcome().complete(applied(1, 1));
    write(entry("b")).outcome().complete(applied(2, 1));
    replies.receiveSeveralMessages(2);

    leader.restart();

    assertEquals(3, write(entry("c")).leaderSequenceNr());
  }

  @Test
  void aResignedLeaderPersistsNothingMoreAndTellsWritersItDoesNotLead() {
    LogLeader.EntryPersisted inFlight = write(entry("a"));
    leader.runCommand(new LogLeader.Resign());
    inFlight.outcome().complete(applied(1, 1));
    assertEquals(1, replies.expectMessageClass(LogLeader.Written.class).writeId(), "the write in flight ends");

    var late = leader.runCommand(new LogLeader.Write("w", 42, entry("b"), replies.getRef()));

    assertTrue(late.events().isEmpty(), "nothing persisted after resigning");
    assertEquals(42, replies.expectMessageClass(LogLeader.NotLeading.class).writeId());
  }
}
