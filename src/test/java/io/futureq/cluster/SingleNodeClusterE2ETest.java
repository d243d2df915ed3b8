package io.futureq.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.app.StartupException;
import io.futureq.cli.FutureqCommand;
import io.futureq.e2e.TestBroker;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** What a one-node cluster refuses: another mode's data directory, and removing a node it does not have. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SingleNodeClusterE2ETest {
  private static final Duration READY = Duration.ofSeconds(90);

  @TempDir
  Path dir;

  @Test
  void aStandaloneBrokerRefusesTheDataDirectoryOfAClusterNode() throws Exception {
    Path data = dir.resolve("node-1").resolve("data");
    try (ClusterNodes cluster = new ClusterNodes(dir, 1)) {
      cluster.startAll();
      cluster.awaitAllReady(READY);
    }

    StartupException e = assertThrows(StartupException.class, () -> TestBroker.start(data).close());

    assertTrue(e.getMessage().startsWith("the data directory " + data.toAbsolutePath()
        + " (futureq.storage.data-dir) belongs to a cluster node and this broker runs standalone"), e.getMessage());
  }

  @Test
  void aClusterNodeRefusesTheDataDirectoryOfAStandaloneBroker() {
    Path data = dir.resolve("node-1").resolve("data");
    TestBroker.start(data).close();

    try (ClusterNodes cluster = new ClusterNodes(dir, 1)) {
      StartupException e = assertThrows(StartupException.class, () -> cluster.start(0));
      assertTrue(e.getMessage().startsWith("the data directory " + data.toAbsolutePath()
          + " (futureq.storage.data-dir) was written by a standalone broker and this node runs clustered"),
          e.getMessage());
    }
  }

  @Test
  void clusterLeaveOfANodeThatIsNotAMemberFailsAndKeepsTheGroup() throws Exception {
    try (ClusterNodes cluster = new ClusterNodes(dir, 1)) {
      cluster.startAll();
      cluster.awaitAllReady(READY);
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      CommandLine cli = FutureqCommand.commandLine();
      cli.setOut(new PrintWriter(out, true));
      cli.setErr(new PrintWriter(err, true));

      int exit = cli.execute("cluster", "leave", "--server", cluster.target(0), "--node-id", "node-9");

      assertEquals(1, exit, out + "\n" + err);
      assertEquals("", out.toString());
      assertTrue(err.toString().contains("node_id: node-9 is not a member of the Raft group (voters: node-1)"),
          err.toString());
      assertEquals(1, err.toString().lines().count(), err.toString());
    }
  }
}
