package io.futureq.log.raft;

import static io.futureq.log.Commands.createGroup;
import static io.futureq.log.Commands.message;
import static io.futureq.log.Commands.store;
import static io.futureq.log.raft.RaftCluster.TOPIC;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.UnknownFieldSet;
import io.futureq.log.CommandResult;
import io.futureq.log.LogClosedException;
import io.futureq.log.LogOverloadedException;
import io.futureq.log.WriteQueueLimit;
import io.futureq.log.proto.LogCommand;
import io.futureq.log.proto.LogEntry;
import io.futureq.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.exceptions.StateMachineException;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 3, unit = TimeUnit.MINUTES)
class RaftEventLogTest {
  /** Large enough that these tests never snapshot: replay then starts at the first entry. */
  private static final long NO_SNAPSHOTS = 1_000_000;
  private static final long SEGMENT_BYTES = 1L << 20;

  @TempDir
  Path dir;

  private RaftCluster cluster;

  @AfterEach
  void close() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void appendsThroughAnyReplicaAreAppliedEverywhereInTheSameOrder() throws Exception {
    cluster = RaftCluster.start(dir, 3, NO_SNAPSHOTS, SEGMENT_BYTES);
    List<CompletableFuture<CommandResult>> appends = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      RaftNode via = cluster.node(i % 3);
      appends.add(via.log().append(store(message(TOPIC, "m" + i, 0))).toCompletableFuture());
    }
    CompletableFuture.allOf(appends.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

    Set<Long> eventIds = new HashSet<>();
    for (CompletableFuture<CommandResult> append : appends) {
      eventIds.add(((CommandResult.Stored) append.get()).messages().get(0).message().getEventId());
    }
    assertEquals(300, eventIds.size(), "every append got its own event id");
    long index = cluster.awaitConverged();
    cluster.assertStoresEqual(300);
    List<Long> order = cluster.node(0).announcedEventIds();
    assertEquals(300, order.size());
    assertEquals(eventIds, new HashSet<>(order));
    for (RaftNode node : cluster.running()) {
      assertEquals(index, node.appliedIndex(), "applied index of " + node.id());
      assertEquals(order, node.announcedEventIds(), "announcement order on " + node.id());
    }
  }

  @Test
  void statusNamesTheLeaderAndEveryPeer() {
    cluster = RaftCluster.start(dir, 3, NO_SNAPSHOTS, SEGMENT_BYTES);
    RaftNode leader = cluster.awaitLeader();
    RaftCluster.append(cluster.node(0), store(message(TOPIC, "a", 0)));
    cluster.awaitConverged();

    for (RaftNode node : cluster.running()) {
      RaftStatus status = RaftCluster.await("a known leader on every node",
          () -> node.status().leaderId().isEmpty() ? null : node.status());
      assertEquals(node.id(), status.nodeId());
      assertEquals(leader.id(), status.leaderId());
      assertEquals(node == leader ? RaftStatus.Role.LEADER : RaftStatus.Role.FOLLOWER, status.role());
      assertEquals(node.settings().peers(), status.peers());
      assertEquals(Map.of(), status.listeners());
      assertTrue(status.commitIndex() >= status.appliedIndex() && status.appliedIndex() > 0, status.toString());
    }
  }

  @Test
  void aStoppedReplicaCatchesUpAfterRestartingOnItsDirectory() {
    cluster = RaftCluster.start(dir, 3, NO_SNAPSHOTS, SEGMENT_BYTES);
    for (int i = 0; i < 20; i++) {
      RaftCluster.append(cluster.node(i % 3), store(message(TOPIC, "before" + i, 0)));
    }
    cluster.awaitConverged();
    RaftNode stopped = cluster.node(2);
    stopped.stop();

    for (int i = 0; i < 50; i++) {
      RaftCluster.append(cluster.node(i % 2), store(message(TOPIC, "while-down" + i, 0)));
    }
    stopped.start();
    long index = cluster.awaitConverged();

    assertEquals(index, stopped.appliedIndex());
    cluster.assertStoresEqual(70);
  }

  /**
   * Readiness of a restarted node: under steady writes a follower whose apply thread is always busy
   * (here each entry takes a few ms more) is nearly never at the commit index it has just learnt, and
   * used to be reported behind for as long as the writes went on. Caught up now means: it has applied
   * everything committed before it was first asked.
   */
  @Test
  void aRestartedFollowerUnderSteadyWritesIsCaughtUpOnceItHasAppliedWhatWasCommittedBefore() throws Exception {
    cluster = RaftCluster.start(dir, 3, NO_SNAPSHOTS, SEGMENT_BYTES);
    RaftNode leader = cluster.awaitLeader();
    RaftNode follower = cluster.running().stream().filter(n -> n != leader).findFirst().orElseThrow();
    follower.stop();
    for (int i = 0; i < 100; i++) {
      RaftCluster.append(leader, store(message(TOPIC, "while-down" + i, 0)));
    }
    follower.afterEachApply(() -> {
      try {
        Thread.sleep(3); // a sleep: the follower applies slowly, the case under test
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    AtomicBoolean writing = new AtomicBoolean(true);
    Thread writer = new Thread(() -> {
      for (int i = 0; writing.get(); i++) {
        try {
          leader.log().append(store(message(TOPIC, "steady" + i, 0))).toCompletableFuture().get(30, TimeUnit.SECONDS);
          Thread.sleep(2); // a sleep: paces the steady writes
        } catch (Exception e) {
          return;
        }
      }
    }, "steady-writer");
    try {
      follower.start();
      writer.start();
      long committedBefore = leader.status().commitIndex();
      RaftCluster.await("the restarted follower caught up", () -> follower.log().caughtUp() ? true : null);
      assertTrue(follower.status().appliedIndex() >= committedBefore, "caught up at applied index "
          + follower.status().appliedIndex() + " before reaching " + committedBefore + ", committed when first asked");
      assertTrue(writer.isAlive(), "the writes stopped before the follower was caught up");
    } finally {
      writing.set(false);
      writer.join(60_000);
    }
  }

  @Test
  void replayAfterRestartDoesNotApplyEntriesTwice() {
    cluster = RaftCluster.start(dir, 3, NO_SNAPSHOTS, SEGMENT_BYTES);
    cluster.running().forEach(RaftNode::noSnapshotOnStop);
    for (int i = 0; i < 30; i++) {
      RaftCluster.append(cluster.node(i % 3), store(message(TOPIC, "m" + i, 0, "key" + i, 0, Map.of())));
    }
    long before = cluster.awaitConverged();
    List<Long> announcedBefore = cluster.node(1).announcedIndexes();

    for (RaftNode node : cluster.running()) {
      node.stop();
    }
    for (int i = 0; i < 3; i++) {
      cluster.node(i).start();
    }
    cluster.awaitLeader();
    CommandResult.Stored again = (CommandResult.Stored) RaftCluster.append(cluster.node(0),
        store(message(TOPIC, "m0", 0, "key0", 0, Map.of()), message(TOPIC, "new", 0, "key-new", 0, Map.of())));
    long after = cluster.awaitConverged();

    assertTrue(again.messages().get(0).duplicate(), "key0 was stored before the restart");
    assertFalse(again.messages().get(1).duplicate());
    assertTrue(after > before);
    cluster.assertStoresEqual(31);
    List<Long> announcedAfter = cluster.node(1).announcedIndexes();
    assertEquals(announcedBefore, announcedAfter.subList(0, announcedBefore.size()));
    assertTrue(announcedAfter.subList(announcedBefore.size(), announcedAfter.size()).stream()
        .allMatch(index -> index > before), "replayed entries were announced again: " + announcedAfter);
  }

  @Test
  void anEntryEveryReplicaRejectsLeavesNoPendingCountOrGroupBehind() throws Exception {
    cluster = RaftCluster.start(dir, 3, NO_SNAPSHOTS, SEGMENT_BYTES);
    RaftNode node = cluster.node(0);
    // A command this version cannot apply (as from a newer node), after two it can: the whole entry is rejected.
    LogCommand unknown = LogCommand.newBuilder().setUnknownFields(UnknownFieldSet.newBuilder()
        .addField(99, UnknownFieldSet.Field.newBuilder().addVarint(1).build()).build()).build();
    LogEntry entry = LogEntry.newBuilder().addCommands(store(message(TOPIC, "rejected", 0)))
        .addCommands(createGroup(TOPIC, "phantom")).addCommands(unknown).build();
    Throwable rejection;
    try (RaftClient client = RaftServerFactory.client(node.settings(),
        RaftServerFactory.properties(node.settings()),
        RaftServerFactory.group(node.settings(), new RaftServerFactory.LeaderSpread(0, 1)), null)) {
      RaftClientReply reply = client.async().send(Message.valueOf(UnsafeByteOperations.unsafeWrap(
          entry.toByteArray()))).get(RaftCluster.WAIT.toSeconds(), TimeUnit.SECONDS);
      rejection = reply.isSuccess() ? null : reply.getException();
    } catch (ExecutionException e) {
      rejection = e.getCause();
    }
    assertTrue(rejection instanceof StateMachineException, String.valueOf(rejection));

    RaftCluster.append(node, store(message(TOPIC, "kept", 0)));
    CommandResult.GroupCreated created =
        (CommandResult.GroupCreated) RaftCluster.append(node, createGroup(TOPIC, "phantom"));
    cluster.awaitConverged();

    assertFalse(created.existed(), "the rejected CreateGroup must not have registered the group");
    cluster.assertStoresEqual(1);
    for (RaftNode replica : cluster.running()) {
      assertTrue(replica.hasGroup(TOPIC, "phantom"), "group phantom stored on " + replica.id());
    }
  }

  @Test
  void commitsACommandNearTheSizeLimitAndRefusesEmptyOversizedAndLateOnes() throws Exception {
    cluster = RaftCluster.start(dir, 3, NO_SNAPSHOTS, SEGMENT_BYTES);
    RaftNode node = cluster.node(0);
    long limit = node.settings().maxEntryBytes();
    RaftCluster.append(node, store(message(TOPIC, "x".repeat((int) (limit * 3 / 4)), 0)));

    Throwable empty = failure(node.log(), LogCommand.getDefaultInstance());
    Throwable oversized = failure(node.log(), store(message(TOPIC, "x".repeat((int) limit), 0)));
    cluster.awaitConverged();
    cluster.assertStoresEqual(1);
    RaftEventLog closed = node.log();
    node.stop();
    Throwable late = failure(closed, store(message(TOPIC, "late", 0)));

    assertTrue(empty instanceof IllegalArgumentException, String.valueOf(empty));
    assertTrue(oversized instanceof IllegalArgumentException, String.valueOf(oversized));
    assertTrue(oversized.getMessage().contains("exceeds futureq.raft.max-entry-size"), oversized.getMessage());
    assertTrue(late instanceof LogClosedException, String.valueOf(late));
  }

  /**
   * Without a quorum, appends wait: at most the queue limit of them (then RESOURCE_EXHAUSTED at once),
   * and one whose caller is gone by the time it would be submitted is dropped rather than applied
   * once a leader is back (issue 9 #5: they were all committed later, and the queue had no bound).
   */
  @Test
  void withoutQuorumAppendsAreBoundedAndThoseWhoseCallerIsGoneAreNeverApplied() throws Exception {
    cluster = RaftCluster.start(dir, 3, NO_SNAPSHOTS, SEGMENT_BYTES, Duration.ofSeconds(8));
    RaftNode node = cluster.node(0);
    cluster.node(1).stop();
    cluster.node(2).stop();
    WriteQueueLimit limit = new WriteQueueLimit(4, 1L << 30);
    node.stop();
    node.limitQueue(limit);
    node.start();
    // The one sending thread takes the first append and waits for a leader; every later one queues behind it.
    node.log().append(store(message(TOPIC, "submitted", 0)));
    Await.until("the sending thread has taken the first append", Duration.ofSeconds(30),
        () -> limit.queuedCommands() == 0);
    List<CompletableFuture<CommandResult>> queued = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      queued.add(node.log().append(store(message(TOPIC, "queued-" + i, 0))).toCompletableFuture());
    }
    assertEquals(4, limit.queuedCommands());
    Throwable overloaded = failure(node.log(), store(message(TOPIC, "refused", 0)));
    assertTrue(overloaded instanceof LogOverloadedException, String.valueOf(overloaded));
    queued.forEach(f -> f.cancel(false)); // their callers are gone

    cluster.node(1).start();
    cluster.node(2).start();
    cluster.awaitConverged();
    RaftCluster.append(node, store(message(TOPIC, "after", 0)));
    cluster.awaitConverged();
    List<String> applied = node.messagesOf(TOPIC).stream().map(m -> m.getPayload().toStringUtf8()).toList();
    assertTrue(applied.contains("after"), String.valueOf(applied));
    assertTrue(applied.stream().noneMatch(p -> p.startsWith("queued-") || p.equals("refused")),
        "appends answered before they were submitted must not be applied: " + applied);
    assertEquals(0, limit.queuedCommands());
    assertEquals(0, limit.queuedBytes());
  }

  private static Throwable failure(RaftEventLog log, LogCommand command) {
    ExecutionException e = assertThrows(ExecutionException.class,
        () -> log.append(command).toCompletableFuture().get(30, TimeUnit.SECONDS));
    return e.getCause();
  }
}
