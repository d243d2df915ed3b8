package io.futureq.log.raft;

import static io.futureq.log.Commands.message;
import static io.futureq.log.Commands.store;
import static io.futureq.log.raft.RaftCluster.TOPIC;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 3, unit = TimeUnit.MINUTES)
class RaftSnapshotTest {
  /** Small, so the leader snapshots and compacts its log many times while a follower is away. */
  private static final long THRESHOLD = 20;
  private static final long SEGMENT_BYTES = 8L << 10;

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
  void laggingAndWipedFollowersCatchUpByInstallingTheLeadersSnapshot() throws Exception {
    cluster = RaftCluster.start(dir, 3, THRESHOLD, SEGMENT_BYTES);
    RaftNode leader = cluster.awaitLeader();
    List<RaftNode> followers = cluster.running().stream().filter(n -> n != leader).toList();
    appendThrough(leader, "early", 10);
    cluster.awaitConverged();

    RaftNode lagging = followers.get(0);
    lagging.stop();
    int announcedBefore = lagging.announcedIndexes().size();
    appendThrough(leader, "while-lagging", 100);
    lagging.start();
    cluster.awaitConverged();

    cluster.assertStoresEqual(110);
    List<Long> sinceRestart = lagging.announcedIndexes();
    assertCaughtUpBySnapshot(lagging, sinceRestart.subList(announcedBefore, sinceRestart.size()), leader, 100);

    RaftNode wiped = followers.get(1);
    wiped.wipe();
    appendThrough(leader, "while-wiped", 40);
    wiped.start();
    cluster.awaitConverged();

    cluster.assertStoresEqual(150);
    assertCaughtUpBySnapshot(wiped, wiped.announcedIndexes(), leader, 150);
    appendThrough(wiped, "after", 5);
    cluster.awaitConverged();
    cluster.assertStoresEqual(155);
  }

  @Test
  void aStoppedLeaderRejoinsAfterTheNewLeaderCompactedItsLogPastIt() throws Exception {
    // Large segments: the new leader's log is cut only where its term began, exactly where the old
    // leader's log ends; the old leader then asks for the first entry the new leader still has.
    cluster = RaftCluster.start(dir, 3, THRESHOLD, 1L << 20);
    RaftNode oldLeader = cluster.awaitLeader();
    appendThrough(oldLeader, "early", 10);
    cluster.awaitConverged();
    oldLeader.stop();

    RaftNode newLeader = cluster.awaitLeader();
    appendThrough(newLeader, "later", 60);
    oldLeader.start();
    cluster.awaitConverged();

    cluster.assertStoresEqual(70);
  }

  /** One entry per append, so the log grows past several snapshots. */
  private static void appendThrough(RaftNode node, String prefix, int count) {
    for (int i = 0; i < count; i++) {
      RaftCluster.append(node, store(message(TOPIC, prefix + i, 0)));
    }
  }

  /**
   * Replaying the log would have announced every missed entry; installing a snapshot announces
   * only the entries after it, tells the listener that the store was replaced (so topics read it
   * again: the entries in the snapshot were never announced), and leaves the installed checkpoint
   * in the node's snapshot area. Which entries follow the install is read off {@code witness}, a
   * node that applied every entry: entries announced nowhere also take log indexes (Ratis' commit-index
   * metadata after each commit, a replica's empty barrier), so an index count says nothing.
   */
  private static void assertCaughtUpBySnapshot(RaftNode node, List<Long> announcedSinceRestart, RaftNode witness,
      int missed) throws IOException {
    assertTrue(announcedSinceRestart.size() < missed, node.id() + " announced " + announcedSinceRestart.size()
        + " of " + missed + " missed entries: it replayed the log instead of installing a snapshot");
    List<Long> replacements = node.replacements();
    assertFalse(replacements.isEmpty(), node.id() + " installed a snapshot but never announced the store replaced");
    long installedAt = replacements.get(replacements.size() - 1);
    List<Long> afterInstall = witness.announcedIndexes().stream()
        .filter(index -> index > installedAt && index <= node.appliedIndex()).toList();
    assertEquals(afterInstall, announcedSinceRestart, node.id() + " installed a snapshot at index " + installedAt
        + " and is at " + node.appliedIndex() + ": it announces exactly the entries between, as " + witness.id()
        + " did");
    try (Stream<Path> files = Files.list(node.snapshotDir())) {
      assertTrue(files.anyMatch(p -> p.getFileName().toString().startsWith("checkpoint.")),
          "no checkpoint in " + node.snapshotDir());
    }
  }
}
