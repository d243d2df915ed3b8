package io.futureq.log;

import static io.futureq.log.Commands.message;
import static io.futureq.log.Commands.store;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.log.proto.LeaderEntry;
import io.futureq.log.proto.LogCommand;
import io.futureq.log.proto.StoredMessage;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fencing at apply: a leader entry is applied only if its sequence number follows the last one applied, so of two
 * leaders that recovered the same sequence number only the first to reach the log wins, and nothing of the other's
 * entry is applied.
 */
class LeaderEntryFencingTest {
  private static final String TOPIC = "orders";

  @TempDir
  Path dir;

  private TestLog testLog;

  @BeforeEach
  void open() {
    testLog = TestLog.open(dir, 1000);
  }

  @AfterEach
  void close() {
    testLog.close();
  }

  private static LogCommand entry(long sequenceNr, LogCommand... commands) {
    return LogCommand.newBuilder().setLeaderEntry(LeaderEntry.newBuilder().setSequenceNr(sequenceNr)
        .addAllCommands(List.of(commands))).build();
  }

  private CommandResult.LeaderEntryApplied apply(LogCommand command) {
    return (CommandResult.LeaderEntryApplied) testLog.apply(command);
  }

  @Test
  void ofTwoLeadersWritingTheSameSequenceNumberOnlyTheFirstIsApplied() {
    CommandResult.LeaderEntryApplied first = apply(entry(1, store(message(TOPIC, "from-a", 0, "k-a", 0, java.util.Map.of()))));
    CommandResult.LeaderEntryApplied second = apply(entry(1, store(message(TOPIC, "from-b", 0, "k-b", 0, java.util.Map.of()))));

    assertFalse(first.fenced());
    assertTrue(second.fenced());
    assertEquals(1, second.appliedSequenceNr());
    assertTrue(second.results().isEmpty());
    assertEquals(List.of("from-a"), testLog.messagesOf(TOPIC).stream().map(m -> m.getPayload().toStringUtf8()).toList());
    assertEquals(1, BrokerStateMachine.leaderSequenceNr(testLog.store()));
  }

  @Test
  void aStaleLeaderStaysFencedAndTheWinnerKeepsGoingWithoutRepeatingAnId() {
    CommandResult.LeaderEntryApplied a1 = apply(entry(1, store(message(TOPIC, "a1", 0))));
    CommandResult.LeaderEntryApplied b1 = apply(entry(1, store(message(TOPIC, "b1", 0))));
    CommandResult.LeaderEntryApplied a2 = apply(entry(2, store(message(TOPIC, "a2", 0))));
    // The stale leader goes on from where it thought it was: still one behind, so still fenced.
    CommandResult.LeaderEntryApplied b2 = apply(entry(2, store(message(TOPIC, "b2", 0))));
    // A leader that skipped a number is fenced too: no gap is accepted.
    CommandResult.LeaderEntryApplied gap = apply(entry(5, store(message(TOPIC, "gap", 0))));

    assertFalse(a1.fenced());
    assertTrue(b1.fenced());
    assertFalse(a2.fenced());
    assertTrue(b2.fenced());
    assertTrue(gap.fenced());
    List<StoredMessage> stored = testLog.messagesOf(TOPIC);
    assertEquals(List.of("a1", "a2"), stored.stream().map(m -> m.getPayload().toStringUtf8()).toList());
    assertEquals(2, stored.stream().mapToLong(StoredMessage::getEventId).distinct().count());
  }

  @Test
  void theAppliedSequenceNumberSurvivesARestartSoAStaleLeaderIsFencedAfterIt() {
    apply(entry(1, store(message(TOPIC, "a1", 0))));
    testLog.reopen();

    assertTrue(apply(entry(1, store(message(TOPIC, "again", 0)))).fenced());
    CommandResult.LeaderEntryApplied next = apply(entry(2, store(message(TOPIC, "a2", 0))));
    assertFalse(next.fenced());
    assertEquals(1, next.results().size());
    assertFalse(((CommandResult.Stored) next.results().get(0)).messages().get(0).duplicate());
  }

  @Test
  void theCommandsOfAnEntryAreAppliedInOrderWithTheirOwnResults() {
    CommandResult.LeaderEntryApplied applied = apply(entry(1, store(message(TOPIC, "first", 0, "same-key", 0, java.util.Map.of())),
        store(message(TOPIC, "second", 0, "same-key", 0, java.util.Map.of()))));

    assertEquals(2, applied.results().size());
    assertFalse(((CommandResult.Stored) applied.results().get(0)).messages().get(0).duplicate());
    assertTrue(((CommandResult.Stored) applied.results().get(1)).messages().get(0).duplicate());
  }

  /** A batcher that gave up on a write takes a new name numbered on: its first write is the one it names. */
  @Test
  void aWritersFirstWriteIsTheOneItNamesFirst() {
    CommandResult.LeaderEntryApplied early = apply(LogCommand.newBuilder().setLeaderEntry(LeaderEntry.newBuilder()
        .setSequenceNr(1).setWriter("node-a-2").setFirstWriteId(7).setWriteId(8)
        .addCommands(store(message(TOPIC, "w8", 0)))).build());
    CommandResult.LeaderEntryApplied first = apply(LogCommand.newBuilder().setLeaderEntry(LeaderEntry.newBuilder()
        .setSequenceNr(2).setWriter("node-a-2").setFirstWriteId(7).setWriteId(7)
        .addCommands(store(message(TOPIC, "w7", 0)))).build());

    assertTrue(early.outOfOrder());
    assertEquals(CommandResult.Verdict.APPLIED, first.verdict());
  }

  private static LogCommand write(long sequenceNr, String writer, long writeId, LogCommand... commands) {
    return LogCommand.newBuilder().setLeaderEntry(LeaderEntry.newBuilder().setSequenceNr(sequenceNr)
        .setWriter(writer).setWriteId(writeId).addAllCommands(List.of(commands))).build();
  }

  /** A batcher sends a write again to a new leader when the old one did not answer: it is applied once. */
  @Test
  void aWriteSentAgainThroughAnotherLeaderIsAppliedOnce() {
    CommandResult.LeaderEntryApplied first = apply(write(1, "node-a", 0, store(message(TOPIC, "w0", 0))));
    CommandResult.LeaderEntryApplied again = apply(write(2, "node-a", 0, store(message(TOPIC, "w0", 0))));
    CommandResult.LeaderEntryApplied next = apply(write(3, "node-a", 1, store(message(TOPIC, "w1", 0))));
    CommandResult.LeaderEntryApplied other = apply(write(4, "node-b", 0, store(message(TOPIC, "b0", 0))));
    CommandResult.LeaderEntryApplied older = apply(write(5, "node-a", 0, store(message(TOPIC, "w0", 0))));

    assertFalse(first.alreadyApplied());
    assertTrue(again.alreadyApplied());
    assertFalse(again.fenced());
    assertTrue(again.results().isEmpty());
    assertFalse(next.alreadyApplied());
    assertFalse(other.alreadyApplied(), "each writer has its own ids");
    assertTrue(older.alreadyApplied(), "a writer's lower id was decided before");
    assertEquals(List.of("w0", "w1", "b0"), testLog.messagesOf(TOPIC).stream()
        .map(m -> m.getPayload().toStringUtf8()).toList());
    assertEquals(5, BrokerStateMachine.leaderSequenceNr(testLog.store()), "every entry took its number");
  }

  /**
   * Pipelined writes: write 0 of a writer is lost on the way (its leader's entry fenced) while write 1 reaches the
   * log through the next entry. Write 1 must not apply before write 0, or write 0's resend would look applied and
   * its messages would be lost; it is refused, and both apply when sent again in order.
   */
  @Test
  void aWriteWhoseEarlierWriteWasNotAppliedIsRefusedUntilThatOneIs() {
    CommandResult.LeaderEntryApplied lost = apply(write(2, "node-a", 0, store(message(TOPIC, "w0", 0))));
    CommandResult.LeaderEntryApplied ahead = apply(write(1, "node-a", 1, store(message(TOPIC, "w1", 0))));
    CommandResult.LeaderEntryApplied firstAgain = apply(write(2, "node-a", 0, store(message(TOPIC, "w0", 0))));
    CommandResult.LeaderEntryApplied secondAgain = apply(write(3, "node-a", 1, store(message(TOPIC, "w1", 0))));
    CommandResult.LeaderEntryApplied skipping = apply(write(4, "node-b", 1, store(message(TOPIC, "b1", 0))));

    assertTrue(lost.fenced());
    assertTrue(ahead.outOfOrder());
    assertTrue(ahead.results().isEmpty());
    assertEquals(CommandResult.Verdict.APPLIED, firstAgain.verdict(), "the out-of-order entry used number 1");
    assertEquals(CommandResult.Verdict.APPLIED, secondAgain.verdict());
    assertTrue(skipping.outOfOrder(), "a writer's first write is its first_write_id, 0 unless set");
    assertEquals(List.of("w0", "w1"), testLog.messagesOf(TOPIC).stream()
        .map(m -> m.getPayload().toStringUtf8()).toList());
  }
}
