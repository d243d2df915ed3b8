package io.futureq.log;

import static io.futureq.log.Commands.message;
import static io.futureq.log.Commands.store;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.log.proto.LeaderEntry;
import io.futureq.log.proto.LogCommand;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one fence at apply: a write leader's entry is applied only if it was written in the Raft term of the log entry
 * that holds it. A leader whose term is over (its replica led again in a later term while it wrote on) gets nothing
 * applied; the decision reads only the entry and its term, so every replica makes it alike.
 */
class LeaderEntryFencingTest {
  private static final String TOPIC = "orders";

  @TempDir
  Path dir;

  private TestLog testLog;
  private long index;

  @BeforeEach
  void open() {
    testLog = TestLog.open(dir, 1000);
  }

  @AfterEach
  void close() {
    testLog.close();
  }

  private static LogCommand entry(long term, LogCommand... commands) {
    return LogCommand.newBuilder().setLeaderEntry(LeaderEntry.newBuilder().setTerm(term)
        .addAllCommands(List.of(commands))).build();
  }

  /** Applies {@code command} as the next log entry, written in Raft term {@code logTerm}. */
  private CommandResult.LeaderEntryApplied applyInTerm(long logTerm, LogCommand command) {
    BrokerStateMachine machine = testLog.stateMachine();
    BrokerStateMachine.Prepared prepared = machine.prepare(++index, logTerm, List.of(command));
    testLog.store().commit(prepared.batch(), true);
    List<CommandResult> results = prepared.results();
    machine.committed(prepared);
    return (CommandResult.LeaderEntryApplied) results.get(0);
  }

  private List<String> payloads() {
    return testLog.messagesOf(TOPIC).stream().map(m -> m.getPayload().toStringUtf8()).toList();
  }

  @Test
  void anEntryOfItsLogEntrysTermIsAppliedWithTheResultsOfItsCommandsInOrder() {
    CommandResult.LeaderEntryApplied applied = applyInTerm(3, entry(3, store(message(TOPIC, "a", 0)),
        store(message(TOPIC, "b", 0), message(TOPIC, "c", 0))));

    assertFalse(applied.fenced());
    assertEquals(2, applied.results().size());
    assertEquals(1, ((CommandResult.Stored) applied.results().get(0)).messages().size());
    assertEquals(2, ((CommandResult.Stored) applied.results().get(1)).messages().size());
    assertEquals(List.of("a", "b", "c"), payloads());
  }

  @Test
  void anEntryOfAnEarlierTermIsFencedAndChangesNothing() {
    applyInTerm(3, entry(3, store(message(TOPIC, "from-term-3", 0))));

    CommandResult.LeaderEntryApplied stale = applyInTerm(4, entry(3, store(message(TOPIC, "late", 0))));

    assertTrue(stale.fenced());
    assertTrue(stale.results().isEmpty());
    assertEquals(List.of("from-term-3"), payloads());
    assertEquals(1, testLog.stateMachine().pending(TOPIC));
  }

  @Test
  void theLeaderOfTheNewTermWritesOnWhileTheStaleOneStaysFenced() {
    applyInTerm(3, entry(3, store(message(TOPIC, "a", 0))));
    assertFalse(applyInTerm(4, entry(4, store(message(TOPIC, "b", 0)))).fenced());
    assertTrue(applyInTerm(4, entry(3, store(message(TOPIC, "stale", 0)))).fenced());
    assertFalse(applyInTerm(4, entry(4, store(message(TOPIC, "c", 0)))).fenced());

    assertEquals(List.of("a", "b", "c"), payloads());
  }

  @Test
  void anEntryOfALaterTermThanItsLogEntryIsFencedToo() {
    assertTrue(applyInTerm(2, entry(5, store(message(TOPIC, "ahead", 0)))).fenced());
    assertTrue(payloads().isEmpty());
  }

  @Test
  void theStandaloneLogAppliesEntriesOfItsOneTerm() {
    CommandResult.LeaderEntryApplied applied = (CommandResult.LeaderEntryApplied) testLog.apply(
        entry(BrokerStateMachine.STANDALONE_TERM, store(message(TOPIC, "a", 0))));

    assertFalse(applied.fenced());
    assertEquals(List.of("a"), payloads());
  }
}
