package io.futureq.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.futureq.log.TestLog;
import io.futureq.log.raft.RaftFollowerFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.persistence.AtomicWrite;
import org.apache.pekko.persistence.DeleteMessagesSuccess;
import org.apache.pekko.persistence.JournalProtocol;
import org.apache.pekko.persistence.Persistence;
import org.apache.pekko.persistence.PersistentEnvelope;
import org.apache.pekko.persistence.PersistentRepr;
import org.apache.pekko.testkit.javadsl.TestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Pekko's journal protocol (the cases of its JournalSpec) against a real RocksStore and BrokerStateMachine, on each
 * log the journal runs on: a standalone LocalEventLog, and one follower of a three-replica Raft group, which writes
 * through the leader and replays from its own store.
 */
@ParameterizedClass
@EnumSource(EventLogJournalTest.Log.class)
class EventLogJournalTest {
  enum Log { STANDALONE, RAFT_FOLLOWER }

  @Parameter
  Log logKind;

  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final ActorTestKit TEST_KIT = ActorTestKit.create(JournalBackend.pluginConfig()); // README's setup
  private static final ActorSystem CLASSIC = Adapter.toClassic(TEST_KIT.system());
  private static final AtomicInteger IDS = new AtomicInteger();

  /**
   * One Raft group for the cases that leave it as they found it (each writes under a persistence id of its own):
   * starting a group takes seconds. A case that stops or restarts its follower takes a group of its own.
   */
  @TempDir
  static Path sharedDir;
  private static RaftFollowerFixture sharedRaft;

  @TempDir
  Path dir;

  private TestLog testLog;
  private RaftFollowerFixture raft;
  private ActorRef journal;
  private String persistenceId;

  @AfterParameterizedClassInvocation
  static void closeSharedRaft() {
    if (sharedRaft != null) {
      sharedRaft.close();
      sharedRaft = null;
    }
  }

  @AfterAll
  static void shutdown() {
    TEST_KIT.shutdownTestKit();
  }

  @BeforeEach
  void open() {
    if (logKind == Log.STANDALONE) {
      testLog = TestLog.open(dir, 1000);
      JournalBackend.get(TEST_KIT.system()).bind(testLog.log(), testLog.store());
    } else {
      if (sharedRaft == null) {
        sharedRaft = RaftFollowerFixture.start(sharedDir);
      }
      raft = sharedRaft;
      JournalBackend.get(TEST_KIT.system()).bind(raft.followerLog(), raft.followerStore());
    }
    journal = Persistence.get(CLASSIC).journalFor("futureq.journal", ConfigFactory.empty());
    persistenceId = "cart-" + IDS.incrementAndGet();
  }

  @AfterEach
  void close() {
    if (testLog != null) {
      testLog.close();
    }
    if (raft != null && raft != sharedRaft) {
      raft.close();
    }
  }

  /** For a case that stops or restarts its follower: a Raft group of its own, bound to the journal. */
  private void ownRaftGroup() {
    raft = RaftFollowerFixture.start(dir);
    JournalBackend.get(TEST_KIT.system()).bind(raft.followerLog(), raft.followerStore());
  }

  @Test
  void replaysEverythingWrittenInSequenceOrder() {
    write(atomic("a", 1), atomic("b", 2, "c", 3));
    write(atomic("d", 4));

    assertEquals(List.of("a", "b", "c", "d"), payloads(replay(1, Long.MAX_VALUE, Long.MAX_VALUE, 4)));
  }

  @Test
  void replaysOnlyTheRangeAskedForUpToMax() {
    write(atomic("a", 1, "b", 2, "c", 3, "d", 4, "e", 5));

    assertEquals(List.of("b", "c", "d"), payloads(replay(2, 4, 10, 5)));
    assertEquals(List.of("b", "c"), payloads(replay(2, 4, 2, 5)));
    assertEquals(List.of(), payloads(replay(6, 9, 10, 5)));
  }

  @Test
  void replayedEventsKeepTheirSequenceNumbersAndWriter() {
    write(atomic("a", 1, "b", 2));

    List<PersistentRepr> replayed = replay(1, Long.MAX_VALUE, Long.MAX_VALUE, 2);

    assertEquals(List.of(1L, 2L), List.of(replayed.get(0).sequenceNr(), replayed.get(1).sequenceNr()));
    assertEquals(persistenceId, replayed.get(0).persistenceId());
    assertEquals("writer-1", replayed.get(1).writerUuid());
  }

  @Test
  void deleteHidesDeletedEventsButKeepsTheHighestSequenceNumber() {
    write(atomic("a", 1, "b", 2, "c", 3));
    assertEquals(3, highestSequenceNr());

    delete(2);
    assertEquals(List.of("c"), payloads(replay(1, Long.MAX_VALUE, Long.MAX_VALUE, 3)));

    delete(Long.MAX_VALUE);
    assertEquals(List.of(), payloads(replay(1, Long.MAX_VALUE, Long.MAX_VALUE, 3)));
    assertEquals(3, highestSequenceNr());
    write(atomic("d", 4));
    assertEquals(List.of("d"), payloads(replay(1, Long.MAX_VALUE, Long.MAX_VALUE, 4)));
  }

  @Test
  void highestSequenceNumberIsZeroForAnUnknownPersistenceId() {
    assertEquals(0, highestSequenceNr());
  }

  @Test
  void rejectsAnAtomicWriteThatCannotBeSerializedAndWritesTheOthers() {
    TestKit probe = new TestKit(CLASSIC);
    List<AtomicWrite> writes = List.of(atomic("a", 1), atomic(new Unserializable(new Object()), 2), atomic("c", 3));
    journal.tell(new JournalProtocol.WriteMessages(envelopes(writes), probe.getRef(), 1), ActorRef.noSender());

    probe.expectMsgClass(WAIT, JournalProtocol.WriteMessagesSuccessful$.class);
    probe.expectMsgClass(WAIT, JournalProtocol.WriteMessageSuccess.class);
    JournalProtocol.WriteMessageRejected rejected = probe.expectMsgClass(WAIT,
        JournalProtocol.WriteMessageRejected.class);
    probe.expectMsgClass(WAIT, JournalProtocol.WriteMessageSuccess.class);

    assertEquals(2, rejected.message().sequenceNr());
    assertEquals(List.of("a", "c"), payloads(replay(1, Long.MAX_VALUE, Long.MAX_VALUE, 3)));
  }

  @Test
  void failsTheWholeBatchWhenTheLogAppendFails() {
    if (logKind == Log.STANDALONE) {
      testLog.log().close();
    } else {
      ownRaftGroup();
      raft.stopFollower();
    }
    TestKit probe = new TestKit(CLASSIC);
    journal.tell(new JournalProtocol.WriteMessages(envelopes(List.of(atomic("a", 1), atomic("b", 2))),
        probe.getRef(), 1), ActorRef.noSender());

    probe.expectMsgClass(WAIT, JournalProtocol.WriteMessagesFailed.class);
    probe.expectMsgClass(WAIT, JournalProtocol.WriteMessageFailure.class);
    probe.expectMsgClass(WAIT, JournalProtocol.WriteMessageFailure.class);
  }

  @Test
  void shouldKeepItsState() {
    if (logKind == Log.RAFT_FOLLOWER) {
      ownRaftGroup();
    }
    write(atomic("a", 1, "b", 2, "c", 3));
    delete(1);

    if (logKind == Log.STANDALONE) {
      testLog.reopen();
      JournalBackend.get(TEST_KIT.system()).bind(testLog.log(), testLog.store());
    } else {
      raft.restartFollower();
      JournalBackend.get(TEST_KIT.system()).bind(raft.followerLog(), raft.followerStore());
    }

    assertEquals(List.of("b", "c"), payloads(replay(1, Long.MAX_VALUE, Long.MAX_VALUE, 3)));
    assertEquals(3, highestSequenceNr());
  }

  /** No serializer is bound to it, and Pekko's Java serialization is off. */
  record Unserializable(Object state) {}

  private AtomicWrite atomic(Object... payloadsAndSequenceNrs) {
    List<PersistentRepr> reprs = new ArrayList<>();
    for (int i = 0; i < payloadsAndSequenceNrs.length; i += 2) {
      reprs.add(PersistentRepr.apply(payloadsAndSequenceNrs[i], ((Number) payloadsAndSequenceNrs[i + 1]).longValue(),
          persistenceId, "", false, ActorRef.noSender(), "writer-1"));
    }
    return new AtomicWrite(CollectionConverters.asScala(reprs).toList());
  }

  private static scala.collection.immutable.Seq<PersistentEnvelope> envelopes(List<AtomicWrite> writes) {
    return CollectionConverters.asScala(new ArrayList<PersistentEnvelope>(writes)).toList();
  }

  private void write(AtomicWrite... writes) {
    TestKit probe = new TestKit(CLASSIC);
    journal.tell(new JournalProtocol.WriteMessages(envelopes(List.of(writes)), probe.getRef(), 1),
        ActorRef.noSender());
    probe.expectMsgClass(WAIT, JournalProtocol.WriteMessagesSuccessful$.class);
    for (AtomicWrite write : writes) {
      for (int i = 0; i < write.size(); i++) {
        probe.expectMsgClass(WAIT, JournalProtocol.WriteMessageSuccess.class);
      }
    }
  }

  private void delete(long toSequenceNr) {
    TestKit probe = new TestKit(CLASSIC);
    journal.tell(new JournalProtocol.DeleteMessagesTo(persistenceId, toSequenceNr, probe.getRef()),
        ActorRef.noSender());
    probe.expectMsgClass(WAIT, DeleteMessagesSuccess.class);
  }

  private List<PersistentRepr> replay(long from, long to, long max, long expectedHighest) {
    TestKit probe = new TestKit(CLASSIC);
    journal.tell(new JournalProtocol.ReplayMessages(from, to, max, persistenceId, probe.getRef()),
        ActorRef.noSender());
    List<PersistentRepr> replayed = new ArrayList<>();
    while (true) {
      Object reply = probe.receiveOne(WAIT);
      if (reply instanceof JournalProtocol.ReplayedMessage m) {
        replayed.add(m.persistent());
      } else if (reply instanceof JournalProtocol.RecoverySuccess s) {
        assertEquals(expectedHighest, s.highestSequenceNr());
        return replayed;
      } else {
        throw new AssertionError("unexpected reply to a replay: " + reply);
      }
    }
  }

  private long highestSequenceNr() {
    TestKit probe = new TestKit(CLASSIC);
    journal.tell(new JournalProtocol.ReplayMessages(1, 0, 0, persistenceId, probe.getRef()), ActorRef.noSender());
    return probe.expectMsgClass(WAIT, JournalProtocol.RecoverySuccess.class).highestSequenceNr();
  }

  private static List<Object> payloads(List<PersistentRepr> reprs) {
    List<Object> out = new ArrayList<>();
    reprs.forEach(r -> out.add(r.payload()));
    assertTrue(reprs.stream().noneMatch(PersistentRepr::deleted));
    return out;
  }
}
