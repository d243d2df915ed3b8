package io.futureq.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.client.FutureQClient;
import io.futureq.client.FutureQProducer;
import io.futureq.client.OutgoingMessage;
import io.futureq.client.ProducerOptions;
import io.futureq.client.SendResult;
import io.futureq.log.CommandResult;
import io.futureq.log.Commands;
import io.futureq.log.leader.LogLeader;
import io.futureq.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.cluster.typed.Cluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The write leader in a cluster: it runs on the node whose replica leads Raft, every member's writers reach it, and
 * writes far larger than remoting's ordinary 256 KiB message (a publish of several MiB, an answer with thousands of
 * ids) cross from a follower to it and back; a second leader of another Raft term is fenced, and nothing of it is
 * applied.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClusterWriteLeaderE2ETest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir
  Path dir;

  @Test
  void theWriteLeaderRunsWhereRaftLeadsAndTakesLargeWritesFromAFollower() throws Exception {
    try (ClusterNodes cluster = new ClusterNodes(dir, 3, Map.of(), false)) {
      cluster.startAll();
      cluster.awaitAllReady(Duration.ofSeconds(90));
      int raftLeader = ClusterTopics.raftLeader(cluster);
      Address leaderNode = Cluster.get(cluster.nodes[raftLeader].system()).selfMember().address();
      for (int i = 0; i < cluster.size; i++) {
        ActorSystem<?> system = cluster.nodes[i].system();
        Address listed = listedLeader(system).path().address();
        assertEquals(leaderNode, listed.hasGlobalScope() ? listed : Cluster.get(system).selfMember().address(),
            "where node " + (i + 1) + " finds the write leader");
      }
      int follower = (raftLeader + 1) % cluster.size;
      try (FutureQClient client = FutureQClient.builder().target(cluster.target(follower)).build()) {
        FutureQProducer producer = client.producer(ProducerOptions.defaults().withLinger(Duration.ofMillis(50))
            .withBatchMessages(10_000));
        byte[] mebibyte = new byte[1024 * 1024];
        Arrays.fill(mebibyte, (byte) 'x');
        List<CompletableFuture<SendResult>> large = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
          large.add(producer.send(OutgoingMessage.to("large").payload(mebibyte).delay(Duration.ofHours(1)).build()));
        }
        List<CompletableFuture<SendResult>> many = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
          many.add(producer.send(OutgoingMessage.to("many").payload("m" + i).delay(Duration.ofHours(1)).build()));
        }
        Set<String> ids = new HashSet<>();
        for (CompletableFuture<SendResult> sent : large) {
          ids.add(sent.get(WAIT.toSeconds(), TimeUnit.SECONDS).messageId());
        }
        for (CompletableFuture<SendResult> sent : many) {
          ids.add(sent.get(WAIT.toSeconds(), TimeUnit.SECONDS).messageId());
        }
        assertEquals(10_004, ids.size(), "every message acknowledged with its own id");
        assertEquals(4, client.topicStats("large").get(10, TimeUnit.SECONDS).getPending());
        assertEquals(10_000, client.topicStats("many").get(10, TimeUnit.SECONDS).getPending());

        // Two leaders at once (as when a replica led again in a later term while the leader of the earlier one
        // wrote on): a leader of another term on the Raft leader's node gets its entry into the log, where it is
        // fenced; nothing of it is applied, its writer hears so, and it stops. The real leader writes on.
        ActorSystem<?> leaderSystem = cluster.nodes[raftLeader].system();
        ActorRef<LogLeader.Command> real = listedLeader(leaderSystem);
        long term = Long.parseLong(real.path().name().split("-")[1]);
        ActorRef<LogLeader.Command> stale = leaderSystem.systemActorOf(LogLeader.create(term + 1_000_000, 100,
            1 << 20), "stale-leader", Props.empty());
        TestProbe<Void> watcher = TestProbe.create(leaderSystem);
        CompletableFuture<CommandResult> staleWrite = new CompletableFuture<>();
        stale.tell(new LogLeader.Append(Commands.store(Commands.message("fenced", "stale-1", 0)), 100, staleWrite,
            null));
        ExecutionException refused = assertThrows(ExecutionException.class,
            () -> staleWrite.get(WAIT.toSeconds(), TimeUnit.SECONDS));
        assertTrue(refused.getCause().getMessage().contains("not applied"), refused.getCause().getMessage());
        watcher.expectTerminated(stale, WAIT);
        ids.add(producer.send(OutgoingMessage.to("fenced").payload("real-1").build())
            .get(WAIT.toSeconds(), TimeUnit.SECONDS).messageId());
        // Acknowledged once the leader's replica applied it: the follower asked may apply it a moment later.
        assertEquals(1, pendingOnceKnown(client, "fenced"), "real-1 only, not stale-1");
        assertEquals(10_005, ids.size(), "no id repeats");
      }
    }
  }

  /** The pending count of {@code topic} once the node the client asks knows the topic (within {@link #WAIT}). */
  private static long pendingOnceKnown(FutureQClient client, String topic) {
    // until the node's replica has applied the entry the leader answered from, the topic is unknown there
    return Await.value("topic " + topic + " known to the node asked", WAIT,
        () -> client.topicStats(topic).get(10, TimeUnit.SECONDS).getPending());
  }

  /** The one write leader {@code system}'s receptionist lists, once it lists exactly one. */
  private static ActorRef<LogLeader.Command> listedLeader(ActorSystem<?> system) {
    TestProbe<Receptionist.Listing> probe = TestProbe.create(system);
    return Await.until("exactly one write leader listed", WAIT, () -> {
      system.receptionist().tell(Receptionist.find(LogLeader.SERVICE_KEY, probe.getRef()));
      return probe.receiveMessage(WAIT).getServiceInstances(LogLeader.SERVICE_KEY);
    }, listed -> listed.size() == 1).iterator().next();
  }
}
