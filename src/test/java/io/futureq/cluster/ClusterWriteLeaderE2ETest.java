package io.futureq.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.futureq.client.FutureQClient;
import io.futureq.client.FutureQProducer;
import io.futureq.client.OutgoingMessage;
import io.futureq.client.ProducerOptions;
import io.futureq.client.SendResult;
import io.futureq.log.Commands;
import io.futureq.log.leader.LogLeader;
import io.futureq.log.proto.LogEntry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
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
 * ids) cross from a follower to it and back; a second leader at once is fenced, and nothing is applied twice. The
 * nodes send several writes at once to the leader (pipelined), so the fenced write's successors are refused as out of
 * order and go again behind it.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClusterWriteLeaderE2ETest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir
  Path dir;

  @Test
  void theWriteLeaderRunsWhereRaftLeadsAndTakesLargeWritesFromAFollower() throws Exception {
    try (ClusterNodes cluster = new ClusterNodes(dir, 3, Map.of("futureq.storage.writes-in-flight", 4), false)) {
      cluster.startAll();
      cluster.awaitAllReady(Duration.ofSeconds(90));
      int raftLeader = ClusterTopics.raftLeader(cluster);
      Address leaderNode = Cluster.get(cluster.nodes[raftLeader].system()).selfMember().address();
      for (int i = 0; i < cluster.size; i++) {
        ActorSystem<Void> system = cluster.nodes[i].system();
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

        // Two leaders at once across nodes (as when a paused or cut-off leader comes back): a second one on the
        // follower recovers the log's sequence number and writes; the real leader's next entry is then fenced and
        // its writer sends it again; the second leader, now stale, is fenced in turn. Nothing is applied twice.
        ActorSystem<Void> followerSystem = cluster.nodes[follower].system();
        ActorRef<LogLeader.Command> second = followerSystem.systemActorOf(LogLeader.create(Duration.ofMillis(50)),
            "second-leader", Props.empty());
        TestProbe<LogLeader.WriteOutcome> answers = TestProbe.create(followerSystem);
        // Other writes of the real leader may take its first number: then it is fenced and continues after them,
        // and the write goes again under its id, as a node's batcher sends it.
        LogLeader.WriteOutcome first = null;
        for (int attempt = 0; attempt < 5 && !(first instanceof LogLeader.Written); attempt++) {
          second.tell(new LogLeader.Write("second", 0, publish("fenced", "second-1"), answers.getRef()));
          first = answers.receiveMessage(WAIT);
        }
        assertInstanceOf(LogLeader.Written.class, first);
        ids.add(producer.send(OutgoingMessage.to("fenced").payload("real-1").build())
            .get(WAIT.toSeconds(), TimeUnit.SECONDS).messageId());
        second.tell(new LogLeader.Write("second", 1, publish("fenced", "second-2"), answers.getRef()));
        assertInstanceOf(LogLeader.Fenced.class, answers.receiveMessage(WAIT));
        assertEquals(2, client.topicStats("fenced").get(10, TimeUnit.SECONDS).getPending(),
            "second-1 and real-1, each once; not second-2");
        assertEquals(10_005, ids.size(), "no id repeats");
      }
    }
  }

  private static LogEntry publish(String topic, String payload) {
    return LogEntry.newBuilder().addCommands(Commands.store(Commands.message(topic, payload, 0))).build();
  }

  /** The one write leader {@code system}'s receptionist lists, once it lists exactly one. */
  private static ActorRef<LogLeader.Command> listedLeader(ActorSystem<?> system) throws InterruptedException {
    TestProbe<Receptionist.Listing> probe = TestProbe.create(system);
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      system.receptionist().tell(Receptionist.find(LogLeader.SERVICE_KEY, probe.getRef()));
      Set<ActorRef<LogLeader.Command>> listed = probe.receiveMessage(WAIT).getServiceInstances(LogLeader.SERVICE_KEY);
      if (listed.size() == 1 || System.nanoTime() > deadline) {
        assertEquals(1, listed.size(), "leaders listed: " + listed);
        return listed.iterator().next();
      }
      Thread.sleep(100);
    }
  }
}
