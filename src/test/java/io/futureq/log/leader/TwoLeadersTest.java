package io.futureq.log.leader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.futureq.journal.JournalBackend;
import io.futureq.log.BrokerStateMachine;
import io.futureq.log.CommandResult;
import io.futureq.log.CommandResultCodec;
import io.futureq.log.Commands;
import io.futureq.log.TestLog;
import io.futureq.log.proto.LogEntry;
import io.futureq.log.proto.StoredMessage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two write leaders at once over the real journal, log and RocksDB store: the one that did not see the other's
 * entry is fenced, nothing of its entry is applied, no message id repeats, and after that it continues from
 * the log's sequence number.
 */
class TwoLeadersTest {
  private static final Duration WAIT = Duration.ofSeconds(15);
  private static final String TOPIC = "orders";

  @TempDir
  Path dir;

  private ActorTestKit testKit;
  private TestLog testLog;

  /** The shipped futureq.conf's journal, dispatcher and persistence settings, on a local actor system. */
  private static Config journalConfig() {
    Config shipped = ConfigFactory.parseResources("futureq.conf").resolve();
    return shipped.withOnlyPath("futureq.journal")
        .withFallback(shipped.withOnlyPath("futureq-blocking-dispatcher"))
        .withFallback(shipped.withOnlyPath("pekko.persistence"));
  }

  @BeforeEach
  void open() {
    testKit = ActorTestKit.create(journalConfig());
    testLog = TestLog.open(dir, 1000);
    JournalBackend.get(testKit.system()).bind(testLog.log(), testLog.log(), testLog.store());
  }

  @AfterEach
  void close() {
    testKit.shutdownTestKit();
    testLog.close();
  }

  private static LogEntry publish(String payload) {
    return LogEntry.newBuilder().addCommands(Commands.store(Commands.message(TOPIC, payload, 0, payload, 0, Map.of())))
        .build();
  }

  /** Write {@code id} of one writer (a node's batcher numbers its writes from 0 and sends a refused one again). */
  private LogLeader.WriteOutcome write(ActorRef<LogLeader.Command> leader, long id, String payload) {
    TestProbe<LogLeader.WriteOutcome> replies = testKit.createTestProbe();
    leader.tell(new LogLeader.Write("w", id, publish(payload), replies.getRef()));
    return replies.receiveMessage(WAIT);
  }

  private static long eventIdOf(LogLeader.WriteOutcome outcome) {
    List<CommandResult> results = CommandResultCodec.decode(((LogLeader.Written) outcome).results());
    CommandResult.StoredRef ref = ((CommandResult.Stored) results.get(0)).messages().get(0);
    assertFalse(ref.duplicate());
    return ref.message().getEventId();
  }

  @Test
  void theLeaderThatMissedTheOthersEntryIsFencedAndNothingOfItIsApplied() {
    ActorRef<LogLeader.Command> old = testKit.spawn(LogLeader.create(Duration.ofMillis(50)), "old-leader");
    long first = eventIdOf(write(old, 0, "old-1"));
    // A second leader starts (a handover) while the first still runs: it recovers sequence number 1.
    ActorRef<LogLeader.Command> current = testKit.spawn(LogLeader.create(Duration.ofMillis(50)), "new-leader");
    long second = eventIdOf(write(current, 1, "new-1"));

    LogLeader.WriteOutcome stale = write(old, 2, "old-2");

    LogLeader.Fenced fenced = assertInstanceOf(LogLeader.Fenced.class, stale);
    assertEquals(2, fenced.sequenceNr());
    assertEquals(2, fenced.appliedSequenceNr());
    assertEquals(List.of("old-1", "new-1"), payloads());
    assertEquals(2, BrokerStateMachine.leaderSequenceNr(testLog.store()));

    // The fenced leader continues after the number the log applied: it writes again, and now the other is stale.
    long third = eventIdOf(write(old, 2, "old-2"));
    assertInstanceOf(LogLeader.Fenced.class, write(current, 3, "new-2"));
    assertEquals(List.of("old-1", "new-1", "old-2"), payloads());
    assertEquals(3, List.of(first, second, third).stream().distinct().count());
  }

  private List<String> payloads() {
    return testLog.messagesOf(TOPIC).stream().map(StoredMessage::getPayload).map(p -> p.toStringUtf8()).toList();
  }
}
