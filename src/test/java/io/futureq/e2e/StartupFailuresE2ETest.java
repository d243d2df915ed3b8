package io.futureq.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A broker process that cannot start says why in one line and exits with status 2. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StartupFailuresE2ETest {
  @TempDir
  Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"futureq.api.port", "futureq.metrics.port", "futureq.management.port",
      "futureq.cluster.remoting.port"})
  void aPortInUseStopsStartUpWithOneLineNamingItsSetting(String key) throws Exception {
    try (ServerSocket taken = new ServerSocket()) {
      taken.bind(new InetSocketAddress("127.0.0.1", 0));
      String output = failedStart(key + " = " + taken.getLocalPort());
      assertEquals(List.of("futureq: " + key + ": 127.0.0.1:" + taken.getLocalPort() + " is in use by another "
          + "process; stop it or choose another port"), output.lines().toList(), output);
    }
  }

  @Test
  void aRaftPortInUseStopsAClusterNodeWithOneLine() throws Exception {
    try (ServerSocket taken = new ServerSocket()) {
      taken.bind(new InetSocketAddress("127.0.0.1", 0));
      int management = TestPorts.free();
      String output = failedStart(String.join("\n",
          "futureq.management.port = " + management,
          "futureq.cluster.enabled = true",
          "futureq.cluster.discovery.contact-points = [\"127.0.0.1:" + management + "\"]",
          "futureq.cluster.discovery.required-contact-points = 1",
          "futureq.raft.storage-dir = \"" + dir.resolve("raft") + "\"",
          "futureq.raft.peers { node-1 = \"127.0.0.1:" + taken.getLocalPort() + "\" }"));
      assertEquals(List.of("futureq: futureq.raft.address: 127.0.0.1:" + taken.getLocalPort() + " is in use by "
          + "another process; stop it or choose another port"), output.lines().toList(), output);
    }
  }

  /** Issue 27 (N1): the Raft port beyond loopback without cluster TLS would take anyone's writes. */
  @Test
  void aRaftAddressOtherMachinesReachWithoutClusterTlsStopsStartUpWithOneLine() throws Exception {
    String raft = "0.0.0.0:" + TestPorts.free();
    String output = failedStart(singleNodeCluster(TestPorts.free(), raft));
    assertEquals(List.of("futureq: invalid configuration: futureq.raft.address: \"" + raft + "\" can be reached "
        + "from other machines, and futureq.cluster.tls.enabled = false: turn cluster TLS on (docs/security.md), "
        + "bind loopback addresses (127.0.0.1) for a cluster on one machine, or set "
        + "futureq.cluster.allow-insecure = true to let anyone who reaches them write to the Raft log (publish, "
        + "cancel, delete, change membership) and join the cluster"), output.lines().toList(), output);
  }

  @Test
  void withTheClusterAllowInsecureSwitchItStartsAndWarns() throws Exception {
    int management = TestPorts.free();
    String raft = "0.0.0.0:" + TestPorts.free();
    try (BrokerProcess node = BrokerProcess.startWithManagementPort(dir, dir.resolve("data"), management,
        singleNodeCluster(management, raft) + "\nfutureq.cluster.allow-insecure = true")) {
      node.awaitReady(Duration.ofSeconds(90));
      assertTrue(node.output().contains("WARN  io.futureq.app.Node - futureq.raft.address: \"" + raft + "\" reachable "
          + "from other machines WITHOUT cluster TLS (futureq.cluster.allow-insecure = true)"), node.output());
    }
  }

  @Test
  void twoSettingsOnOnePortStopStartUp() throws Exception {
    int port = TestPorts.free();
    String output = failedStart("futureq.api.port = " + port + "\nfutureq.metrics.port = " + port);
    assertEquals(List.of("futureq: futureq.metrics.port: port " + port + " is also futureq.api.port; give each its "
        + "own port"), output.lines().toList(), output);
  }

  @Test
  void aMistypedKeyStopsStartUpNamingTheClosestSetting() throws Exception {
    String output = failedStart("futureq.group.in-flight-timout = 5s");
    assertTrue(output.contains("futureq.group.in-flight-timout: no such setting (did you mean "
        + "futureq.group.in-flight-timeout?)"), output);
  }

  /** A one-node cluster whose management port is {@code management} and whose Raft server binds {@code raft}. */
  private String singleNodeCluster(int management, String raft) {
    return String.join("\n",
        "futureq.management.port = " + management,
        "futureq.cluster.enabled = true",
        "futureq.cluster.discovery.contact-points = [\"127.0.0.1:" + management + "\"]",
        "futureq.cluster.discovery.required-contact-points = 1",
        "futureq.raft.storage-dir = \"" + dir.resolve("raft") + "\"",
        "futureq.raft.address = \"" + raft + "\"",
        "futureq.raft.peers { node-1 = \"127.0.0.1:" + raft.substring(raft.lastIndexOf(':') + 1) + "\" }");
  }

  /** Starts a broker with {@code extra} settings, expects exit status 2, and returns what it printed. */
  private String failedStart(String extra) throws Exception {
    Path conf = BrokerProcess.writeConfig(dir, dir.resolve("data"), TestPorts.free(), TestPorts.free(),
        extra);
    Path log = dir.resolve("failed-" + System.nanoTime() + ".log");
    Process p = BrokerProcess.launch(conf, log);
    try {
      assertTrue(p.waitFor(60, TimeUnit.SECONDS), "still running:\n" + Files.readString(log));
    } finally {
      p.destroyForcibly();
    }
    String output = Files.readString(log);
    assertEquals(2, p.exitValue(), output);
    return output;
  }
}
