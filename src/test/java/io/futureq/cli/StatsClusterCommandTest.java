package io.futureq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.api.grpc.ClusterInfo;
import io.futureq.api.grpc.LogShardInfo;
import io.futureq.api.grpc.Member;
import io.futureq.api.grpc.RaftInfo;
import io.futureq.e2e.BrokerExtension;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code futureq stats} and {@code futureq cluster} against a real broker. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StatsClusterCommandTest {
  private static final String TOPIC = "cli-stats";
  private static final String LATER = Instant.now().plus(Duration.ofDays(1)).truncatedTo(ChronoUnit.SECONDS)
      .toString();

  @RegisterExtension
  static final BrokerExtension broker = BrokerExtension.withDefaults();
  static String server;

  @BeforeAll
  static void start() {
    server = broker.server();
    Cli.Result now = Cli.run("publish", "--server", server, "--topic", TOPIC, "now");
    Cli.Result later = Cli.run("publish", "--server", server, "--topic", TOPIC, "--at", LATER, "later");
    Cli.Result consumed = Cli.run("consume", "--server", server, "--topic", TOPIC, "--group", "billing",
        "--count", "1");
    assertEquals(0, now.exit() + later.exit() + consumed.exit(), now + "\n" + later + "\n" + consumed);
  }

  @Test
  void statsListsTopicsWithPendingAndGroups() {
    Cli.Result text = Cli.run("stats", "--server", server);
    Cli.Result json = Cli.run("stats", "--server", server, "--json");

    assertEquals(0, text.exit(), text.toString());
    assertTrue(text.lines().get(0).matches("TOPIC\\s+PENDING\\s+GROUPS"), text.toString());
    assertTrue(text.lines().stream().anyMatch(l -> l.matches(TOPIC + "\\s+\\d+\\s+billing")), text.toString());
    assertEquals(0, json.exit(), json.toString());
    assertEquals(1, json.lines().size(), json.toString());
    assertTrue(json.out().startsWith("{\"topics\":[{"), json.toString());
    assertTrue(json.out().matches("(?s).*\\{\"name\":\"" + TOPIC + "\",\"pending\":\\d+,\"groups\":\\[\"billing\"]}.*"),
        json.toString());
  }

  @Test
  void statsShowsOneTopicsBacklogAndGroups() {
    Cli.Result text = Cli.run("stats", "--server", server, "--topic", TOPIC);
    Cli.Result json = Cli.run("stats", "--server", server, "--topic", TOPIC, "--json");

    assertEquals(0, text.exit(), text.toString());
    for (String expected : new String[] {"topic: " + TOPIC, "pending: ", "due now: ", "next due: ",
        "oldest due age: ", "groups:"}) {
      assertTrue(text.out().contains(expected), "missing '" + expected + "' in\n" + text);
    }
    assertTrue(text.out().matches("(?s).*\nnext due: \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\n.*"), text.toString());
    assertTrue(text.out().matches("(?s).*\n  GROUP\\s+CONSUMERS\\s+IN FLIGHT\\s+READY\\s+DELAYED\\s+"
        + "LAG\\s+OLDEST UNACKED\\s+LATENESS P50/P99/MAX MS\n  billing\\s+.*"),
        text.toString());
    assertEquals(0, json.exit(), json.toString());
    assertTrue(json.out().matches("\\{\"topic\":\"" + TOPIC + "\",\"pending\":\\d+,\"due_now\":\\d+,"
        + "\"next_due_unix_ms\":\\d+,\"oldest_due_age_ms\":(\\d+|null),\"groups\":\\[\\{\"name\":\"billing\","
        + "\"consumers\":\\d+,\"in_flight\":\\d+,\"ready\":\\d+,\"delayed\":\\d+,\"lag\":\\d+,"
        + "\"oldest_unacked_due_age_ms\":(\\d+|null),"
        + "\"lateness_us\":\\{\"deliveries\":\\d+,"
        + "\"p50\":\\d+,\"p90\":\\d+,\"p99\":\\d+,\"p99_9\":\\d+,\"max\":\\d+}}]}\n"), json.toString());
  }

  /** Ages in one unit (it printed 6993ms beside 0s), and "none" as "-" or null rather than 0. */
  @Test
  void agesAreSecondsToTheMillisecondAndNoneIsADashOrNull() {
    assertEquals("6.993s", StatsCommand.age(6993));
    assertEquals("0.040s", StatsCommand.age(40));
    assertEquals("-", StatsCommand.age(0));
    // A topic whose only message was cancelled: nothing pending, nothing due.
    assertEquals(0, Cli.run("publish", "--server", server, "--topic", "emptied", "--key", "k", "--delay", "1h", "x")
        .exit());
    assertEquals(0, Cli.run("cancel", "--server", server, "--topic", "emptied", "--key", "k").exit());
    Cli.Result json = Cli.run("stats", "--server", server, "--topic", "emptied", "--json");
    assertEquals(0, json.exit(), json.toString());
    assertTrue(json.out().contains("\"next_due_unix_ms\":null,\"oldest_due_age_ms\":null"), json.toString());
  }

  @Test
  void clusterShowsModeSelfAndMembers() {
    Cli.Result text = Cli.run("cluster", "--server", server);
    Cli.Result json = Cli.run("cluster", "--server", server, "--json");

    assertEquals(0, text.exit(), text.toString());
    assertEquals("mode: standalone", text.lines().get(0), text.toString());
    assertTrue(text.lines().get(1).matches("self: \\S+"), text.toString());
    assertEquals("storage: rocksdb", text.lines().get(2), text.toString());
    assertTrue(text.lines().get(4).matches("  NODE ID\\s+ADDRESS\\s+GRPC ADDRESS\\s+STATUS"), text.toString());
    assertTrue(text.lines().get(5).matches("  \\S+\\s+pekko://\\S+\\s+127\\.0\\.0\\.1:" + broker.grpcPort()
        + "\\s+Up \\(self\\)"), text.toString());
    assertEquals(0, json.exit(), json.toString());
    assertTrue(json.out().matches("\\{\"mode\":\"standalone\",\"self_node_id\":\"[^\"]+\",\"storage\":\"rocksdb\","
        + "\"members\":\\[\\{"
        + "\"node_id\":\"[^\"]+\",\"address\":\"pekko://[^\"]+\",\"grpc_address\":\"127\\.0\\.0\\.1:\\d+\","
        + "\"status\":\"Up\",\"reachable\":true,\"self\":true,\"roles\":\\[.*]}]}\n"), json.toString());
  }

  @Test
  void clusterJsonIncludesTheRaftViewInClusterMode() {
    ClusterInfo info = ClusterInfo.newBuilder().setMode("cluster").setSelfNodeId("n1").setStorage("rocksdb")
        .addMembers(Member.newBuilder().setNodeId("n1").setAddress("pekko://futureq@h1:1").setGrpcAddress("h1:2")
            .setStatus("Up").setReachable(true).setSelf(true).addTopics("orders"))
        .setRaft(RaftInfo.newBuilder().setLeaderId("n1").setRole("LEADER").setTerm(3).setCommitIndex(10)
            .setAppliedIndex(9).putPeers("n1", "h1:3").addLogShards(LogShardInfo.newBuilder().setShard(1)
                .setLeaderId("n2").setRole("FOLLOWER").setTerm(2).setCommitIndex(7).setAppliedIndex(7)
                .putPeers("n2", "h2:3").putListeners("n4", "h4:3"))).build();
    assertEquals("{\"mode\":\"cluster\",\"self_node_id\":\"n1\",\"storage\":\"rocksdb\","
        + "\"members\":[{\"node_id\":\"n1\","
        + "\"address\":\"pekko://futureq@h1:1\",\"grpc_address\":\"h1:2\",\"status\":\"Up\","
        + "\"reachable\":true,\"self\":true,"
        + "\"roles\":[],\"topics\":[\"orders\"]}],\"raft\":{\"leader_id\":\"n1\",\"role\":\"LEADER\",\"term\":3,"
        + "\"commit_index\":10,\"applied_index\":9,\"peers\":{\"n1\":\"h1:3\"},\"listeners\":{},"
        + "\"log_shards\":[{\"shard\":1,\"leader_id\":\"n2\",\"role\":\"FOLLOWER\",\"term\":2,"
        + "\"commit_index\":7,\"applied_index\":7,\"peers\":{\"n2\":\"h2:3\"},\"listeners\":{\"n4\":\"h4:3\"}}]}}",
        ClusterCommand.json(info).toString());
  }

  /** What `cluster join` and `cluster leave` print: with several log shards, each one's voters (each may differ). */
  @Test
  void aMembershipChangePrintsTheVotersOfEachLogShard() {
    RaftInfo one = RaftInfo.newBuilder().putPeers("n2", "h2:3").putPeers("n1", "h1:3").putPeers("n4", "h4:3")
        .addLogShards(LogShardInfo.newBuilder().setShard(0).putPeers("n1", "h1:3")).build();
    StringWriter text = new StringWriter();
    ClusterCommand.printVoters(new PrintWriter(text, true), "joined n4", one);
    assertEquals("joined n4; voters: n1, n2, n4\n", text.toString().replace(System.lineSeparator(), "\n"));

    RaftInfo two = RaftInfo.newBuilder().putPeers("n1", "h1:3")
        .addLogShards(LogShardInfo.newBuilder().setShard(0).putPeers("n1", "h1:3").putPeers("n4", "h4:3"))
        .addLogShards(LogShardInfo.newBuilder().setShard(1).setRole("NOT_HELD").putPeers("n3", "h3:3")
            .putPeers("n2", "h2:3"))
        .build();
    text = new StringWriter();
    ClusterCommand.printVoters(new PrintWriter(text, true), "removed n5", two);
    assertEquals("removed n5; voters of each log shard:\n  0: n1, n4\n  1: n2, n3\n",
        text.toString().replace(System.lineSeparator(), "\n"));
  }

  @Test
  void withoutServerTheCommandsTalkToTheBrokerInFutureqServer() throws Exception {
    String launcher = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder builder = new ProcessBuilder(launcher, "-cp", System.getProperty("java.class.path"),
        "io.futureq.cli.FutureqCommand", "stats", "--topic", TOPIC).redirectErrorStream(true);
    builder.environment().put("FUTUREQ_SERVER", server);
    Process p = builder.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), out);
    assertEquals(0, p.exitValue(), out);
    assertTrue(out.startsWith("topic: " + TOPIC + "\npending: "), out);
  }

  @Test
  void clusterJoinAndLeaveNeedAClusteredBroker() {
    Cli.Result join = Cli.run("cluster", "join", "--server", server, "--node-id", "node-9",
        "--raft-address", "127.0.0.1:50099");
    assertEquals(1, join.exit(), join.toString());
    assertTrue(join.err().contains("FAILED_PRECONDITION"), join.err());
    assertTrue(join.err().contains("standalone"), join.err());
    Cli.Result leave = Cli.run("cluster", "leave", "--server", server, "--node-id", "node-9");
    assertEquals(1, leave.exit(), leave.toString());
    Cli.Result bad = Cli.run("cluster", "join", "--server", server, "--node-id", "n", "--raft-address", "nope");
    assertEquals(2, bad.exit(), bad.toString());
    assertTrue(bad.err().contains("--raft-address"), bad.err());
  }
}
