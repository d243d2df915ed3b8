package io.futureq.log.leader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.futureq.journal.JournalBackend;
import io.futureq.log.BrokerStateMachine;
import io.futureq.log.CommandResult;
import io.futureq.log.Commands;
import io.futureq.log.LogUnavailableException;
import io.futureq.log.TestLog;
import io.futureq.log.TrapStore;
import io.futureq.storage.StorageException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The write leader on the FutureQ journal over a real standalone log (RocksDB, fsync): one persist is one log entry
 * holding every command that arrived while the previous one was on its way; writers are answered from the apply; a
 * leader of another term than the log's gets nothing applied and stops; a failed entry fails its writers.
 */
class LogLeaderTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final ActorTestKit TEST_KIT = ActorTestKit.create(config());
  private static final AtomicInteger NAMES = new AtomicInteger();

  @TempDir
  Path dir;

  private TestLog testLog;
  private TrapStore trap;

  /** The shipped futureq.conf's journal, dispatcher and persistence settings, on a local actor system. */
  static Config config() {
    Config shipped = ConfigFactory.parseResources("futureq.conf").resolve();
    return shipped.withOnlyPath("futureq.journal").withFallback(shipped.withOnlyPath("futureq-blocking-dispatcher"))
        .withFallback(shipped.withOnlyPath("pekko.persistence"));
  }

  @AfterAll
  static void shutdown() {
    TEST_KIT.shutdownTestKit();
  }

  @BeforeEach
  void open() {
    testLog = TestLog.open(dir, 1000, store -> trap = new TrapStore(store));
    JournalBackend.get(TEST_KIT.system()).bind(testLog.log(), testLog.store());
  }

  @AfterEach
  void close() {
    testLog.close();
  }

  private static ActorRef<LogLeader.Command> leader(long term) {
    return TEST_KIT.spawn(LogLeader.create(term, 1000, 1L << 30), "leader-" + NAMES.incrementAndGet());
  }

  private static CompletableFuture<CommandResult> append(ActorRef<LogLeader.Command> leader, String payload) {
    CompletableFuture<CommandResult> result = new CompletableFuture<>();
    leader.tell(new LogLeader.Append(Commands.store(Commands.message("t", payload, 0)), 100, result, null));
    return result;
  }

  private static CommandResult.Stored stored(CompletableFuture<CommandResult> result) throws Exception {
    return (CommandResult.Stored) result.get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  @Test
  void everyCommandThatArrivesWhileAWriteIsOnItsWayGoesIntoTheNextEntryAndIsAnsweredFromItsApply()
      throws Exception {
    ActorRef<LogLeader.Command> leader = leader(BrokerStateMachine.STANDALONE_TERM);
    trap.holdNextCommit();
    CompletableFuture<CommandResult> first = append(leader, "first");
    trap.awaitHeldCommit();
    List<CompletableFuture<CommandResult>> meanwhile = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      meanwhile.add(append(leader, "m" + i));
    }
    trap.releaseCommit();

    Set<Long> eventIds = new HashSet<>();
    eventIds.add(stored(first).messages().get(0).message().getEventId());
    for (CompletableFuture<CommandResult> result : meanwhile) {
      eventIds.add(stored(result).messages().get(0).message().getEventId());
    }
    assertEquals(21, eventIds.size(), "each writer got its own message's result");
    List<Long> applied = testLog.appliedIndexes();
    assertEquals(2, applied.size(), "the first entry, then the twenty in one: " + applied);
    assertEquals(21, testLog.messagesOf("t").size());
  }

  @Test
  void aLeaderOfAnotherTermThanTheLogsGetsNothingAppliedItsWritersHearSoAndItStops() {
    ActorRef<LogLeader.Command> stale = leader(BrokerStateMachine.STANDALONE_TERM + 1);
    TestProbe<Void> watcher = TEST_KIT.createTestProbe();

    ExecutionException refused = assertThrows(ExecutionException.class,
        () -> append(stale, "stale").get(WAIT.toSeconds(), TimeUnit.SECONDS));

    assertInstanceOf(LogUnavailableException.class, refused.getCause());
    assertTrue(refused.getCause().getMessage().contains("not applied"), refused.getCause().getMessage());
    watcher.expectTerminated(stale, WAIT);
    assertTrue(testLog.messagesOf("t").isEmpty());
  }

  @Test
  void anEntryTheLogFailsFailsItsWritersWithTheLogsErrorAndTheLeaderStops() throws Exception {
    ActorRef<LogLeader.Command> leader = leader(BrokerStateMachine.STANDALONE_TERM);
    TestProbe<Void> watcher = TEST_KIT.createTestProbe();
    stored(append(leader, "written"));
    trap.failNextCommit("write failed: No space left on device");

    ExecutionException failed = assertThrows(ExecutionException.class,
        () -> append(leader, "a").get(WAIT.toSeconds(), TimeUnit.SECONDS));

    assertInstanceOf(StorageException.class, failed.getCause());
    assertTrue(failed.getCause().getMessage().contains("No space left"));
    watcher.expectTerminated(leader, WAIT);
  }

  @Test
  void aLeaderThatResignsAnswersWhatItIsWritingThenStopsWithoutWritingMore() throws Exception {
    ActorRef<LogLeader.Command> leader = leader(BrokerStateMachine.STANDALONE_TERM);
    TestProbe<Void> watcher = TEST_KIT.createTestProbe();
    trap.holdNextCommit();
    CompletableFuture<CommandResult> written = append(leader, "a");
    trap.awaitHeldCommit();
    leader.tell(new LogLeader.Resign());
    trap.releaseCommit();

    assertEquals(1, stored(written).messages().size());
    watcher.expectTerminated(leader, WAIT);
    assertEquals(1, testLog.messagesOf("t").size());
  }
}
