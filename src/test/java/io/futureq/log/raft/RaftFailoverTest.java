package io.futureq.log.raft;

import static io.futureq.log.Commands.message;
import static io.futureq.log.Commands.store;
import static io.futureq.log.raft.RaftCluster.TOPIC;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.log.CommandResult;
import io.futureq.log.LogUnavailableException;
import io.futureq.log.proto.StoredMessage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 3, unit = TimeUnit.MINUTES)
class RaftFailoverTest {
  private static final int PRODUCERS = 4;

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
  void appendsResumeAfterTheLeaderIsKilledAndNoAcknowledgedAppendIsLost() throws Exception {
    // Snapshots every 50 entries, so the stream also runs across snapshots and log compaction.
    cluster = RaftCluster.start(dir, 3, 50, 64L << 10);
    RaftNode leader = cluster.awaitLeader();
    List<RaftNode> survivors = cluster.running().stream().filter(n -> n != leader).toList();
    AppendStream stream = new AppendStream(survivors);
    List<Thread> producers = new ArrayList<>();
    for (int p = 0; p < PRODUCERS; p++) {
      int producer = p;
      producers.add(new Thread(() -> stream.produce(producer), "producer-" + p));
    }
    producers.forEach(Thread::start);

    RaftCluster.await("100 acknowledged appends before the kill", () -> stream.acked.size() >= 100 ? true : null);
    long killedAt = System.nanoTime();
    leader.stop();
    long afterKill = stream.acked.size();
    RaftCluster.await("100 acknowledged appends after the kill",
        () -> stream.firstAckSubmittedAfter(killedAt) > 0 && stream.acked.size() >= afterKill + 100 ? true : null);
    stream.running.set(false);
    for (Thread producer : producers) {
      producer.join(RaftCluster.WAIT.toMillis());
    }

    Duration failover = Duration.ofNanos(stream.firstAckSubmittedAfter(killedAt) - killedAt);
    System.out.printf("raft failover: first append submitted after killing leader %s acknowledged %d ms after the "
        + "kill; %d appends acknowledged, %d failed meanwhile %s%n", leader.id(), failover.toMillis(),
        stream.acked.size(), stream.failures.get(), stream.failureKinds.keySet());
    RaftNode newLeader = cluster.awaitLeader();
    assertNotEquals(leader.id(), newLeader.id());
    cluster.awaitConverged();
    List<StoredMessage> stored = survivors.get(0).messagesOf(TOPIC);
    Set<String> storedKeys = new HashSet<>();
    stored.forEach(m -> storedKeys.add(m.getKey()));
    for (String key : stream.acked) {
      assertTrue(storedKeys.contains(key), "acknowledged message " + key + " is missing");
    }
    assertEquals(stored.size(), storedKeys.size(), "a retried append was stored twice");
    for (RaftNode node : survivors) {
      assertEquals(stored, node.messagesOf(TOPIC), "messages on " + node.id());
      assertEquals(stored.size(), node.pending(TOPIC), "pending count on " + node.id());
    }
  }

  @Test
  void appendsWithoutAQuorumFailAsUnavailableAndWorkAgainOnceItIsBack() throws Exception {
    cluster = RaftCluster.start(dir, 3, 1_000_000, 1L << 20, Duration.ofSeconds(3));
    RaftNode leader = cluster.awaitLeader();
    RaftNode survivor = cluster.running().stream().filter(n -> n != leader).findFirst().orElseThrow();
    List<RaftNode> others = cluster.running().stream().filter(n -> n != survivor).toList();
    RaftCluster.append(survivor, store(message(TOPIC, "a", 0, "a", 0, Map.of())));
    others.forEach(RaftNode::stop);

    ExecutionException e = assertThrows(ExecutionException.class, () -> survivor.log()
        .append(store(message(TOPIC, "b", 0, "b", 0, Map.of()))).toCompletableFuture().get(60, TimeUnit.SECONDS));

    assertTrue(e.getCause() instanceof LogUnavailableException, String.valueOf(e.getCause()));
    assertTrue(e.getCause().getMessage().startsWith("no Raft leader committed an entry of 1 commands within 3000ms"),
        e.getCause().getMessage());
    others.get(0).start();
    cluster.awaitLeader();
    RaftCluster.append(survivor, store(message(TOPIC, "c", 0, "c", 0, Map.of())));
    cluster.awaitConverged();
    Set<String> keys = new HashSet<>();
    survivor.messagesOf(TOPIC).forEach(m -> keys.add(m.getKey()));
    assertTrue(keys.containsAll(Set.of("a", "c")), keys.toString());
    assertEquals(survivor.messagesOf(TOPIC), others.get(0).messagesOf(TOPIC));
  }

  /**
   * A leader that loses its majority steps down with no next leader known, and Ratis names leaders only once one is
   * known: its write leader's placement must still learn at once that it no longer leads. Before, it went on
   * restarting write leaders for the term that was over (88 of them in one crash loop), until some node led again.
   */
  @Test
  void aLeaderThatLostItsMajorityTellsItsPlacementItNoLongerLeads() throws Exception {
    cluster = RaftCluster.start(dir, 3, 1_000_000, 1L << 20);
    RaftNode leader = cluster.awaitLeader();
    AtomicLong ledIn = new AtomicLong(-1);
    AtomicBoolean follows = new AtomicBoolean();
    leader.log().onLeadership(term -> {
      ledIn.set(term);
      follows.set(false);
    }, () -> follows.set(true));
    assertTrue(ledIn.get() > 0 && !follows.get(), "told at once that it leads");

    cluster.running().stream().filter(n -> n != leader).toList().forEach(RaftNode::stop);
    RaftCluster.await("the leader, alone, stepped down", () -> leader.log().leading() ? null : true);
    RaftCluster.await("its placement told it follows", () -> follows.get() ? true : null);
    assertEquals("", leader.log().status().leaderId(), "no next leader is known: the two others are stopped");
  }

  /**
   * A new Raft leader is ready to lead (its write leader recovers) without appending a barrier first (that cost
   * every leader failover one more commit round): once it is ready, its store holds everything the dead one
   * committed, and nothing was appended to get there. A follower refuses at once: a write leader of a term its replica
   * does not lead would have every entry fenced.
   */
  @Test
  void aNewLeaderIsReadyToLeadWithAllThatWasCommittedAndWithoutAnEntryOfItsOwn() throws Exception {
    cluster = RaftCluster.start(dir, 3, 1_000_000, 1L << 20);
    RaftNode leader = cluster.awaitLeader();
    for (int i = 1; i <= 5; i++) {
      RaftCluster.append(leader, store(message(TOPIC, "m" + i, 0)));
    }
    long committed = cluster.awaitConverged();
    leader.stop();
    RaftNode next = cluster.awaitLeader();
    RaftNode follower = cluster.running().stream().filter(n -> n != next).findFirst().orElseThrow();

    // Asked as soon as it leads, perhaps before its first entry is applied: it waits for that.
    long applied = next.log().readyToLead(RaftCluster.WAIT).get(60, TimeUnit.SECONDS);
    assertEquals(5, next.pending(TOPIC));
    assertTrue(applied >= committed, "ready at applied index " + applied + ", before " + committed);

    // The survivors append a barrier each once back in touch (ReplicaLease); asked after those, nothing else appends.
    RaftCluster.await("the survivors back in touch", () -> cluster.running().stream()
        .allMatch(n -> n.log().current()) ? true : null);
    long settled = cluster.awaitConverged();
    assertEquals(settled, next.log().readyToLead(RaftCluster.WAIT).get(60, TimeUnit.SECONDS),
        "the leader appended an entry to be ready to lead");
    assertEquals(settled, next.appliedIndex());
    ExecutionException refused = assertThrows(ExecutionException.class,
        () -> follower.log().readyToLead(RaftCluster.WAIT).get(60, TimeUnit.SECONDS));
    assertInstanceOf(LogUnavailableException.class, refused.getCause(), "a follower recovers no write leader");
    assertEquals(settled, cluster.awaitConverged(), "the follower's refusal appended nothing");
  }

  /** A steady stream of keyed appends through the surviving nodes; records what was acknowledged when. */
  private static final class AppendStream {
    final List<RaftNode> via;
    final AtomicBoolean running = new AtomicBoolean(true);
    final ConcurrentLinkedQueue<String> acked = new ConcurrentLinkedQueue<>();
    final AtomicLong failures = new AtomicLong();
    final Map<String, Boolean> failureKinds = new ConcurrentHashMap<>();
    /** Submission time to acknowledgement time, of every acknowledged append. */
    final Map<Long, Long> ackTimes = new ConcurrentHashMap<>();

    AppendStream(List<RaftNode> via) {
      this.via = via;
    }

    void produce(int producer) {
      for (int i = 0; running.get(); i++) {
        String key = "p" + producer + "-" + i;
        long submitted = System.nanoTime();
        try {
          CommandResult result = via.get(i % via.size()).log()
              .append(store(message(TOPIC, key, 0, key, 0, Map.of())))
              .toCompletableFuture().get(RaftCluster.WAIT.toSeconds(), TimeUnit.SECONDS);
          if (result instanceof CommandResult.Stored) {
            acked.add(key);
            ackTimes.put(submitted, System.nanoTime());
          }
        } catch (Exception e) {
          failures.incrementAndGet();
          Throwable cause = e.getCause() == null ? e : e.getCause();
          failureKinds.put(cause.getClass().getSimpleName(), true);
        }
      }
    }

    /** When the first append submitted after {@code time} was acknowledged, or 0 if none was yet. */
    long firstAckSubmittedAfter(long time) {
      return ackTimes.entrySet().stream().filter(e -> e.getKey() > time).mapToLong(Map.Entry::getValue).min()
          .orElse(0);
    }
  }
}
