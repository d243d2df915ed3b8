package io.futureq.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RaftSettingsTest {
  /** The reference configuration (conf/futureq.conf) with {@code hocon} on top. */
  private static Config with(String hocon) {
    return BrokerSettings.load(ConfigFactory.parseString(hocon), null, Map.of());
  }

  @Test
  void defaultsAreValidAndMatchTheReference() {
    RaftSettings s = RaftSettings.from(with("futureq.raft.peers { node-1 = \"127.0.0.1:50005\" }"));

    assertEquals("node-1", s.nodeId());
    assertEquals(Map.of("node-1", "127.0.0.1:50005"), s.peers());
    assertEquals("127.0.0.1:50005", s.address());
    assertEquals("127.0.0.1", s.host());
    assertEquals(50005, s.port());
    assertEquals(Path.of("./data/raft"), s.storageDir());
    assertEquals(100_000, s.snapshotThreshold());
    assertEquals(Duration.ofSeconds(10), s.requestTimeout());
    assertEquals(Duration.ofSeconds(1), s.electionTimeout());
    assertEquals(32L << 20, s.logSegmentBytes());
    assertEquals(32L << 20, s.maxEntryBytes());
    assertFalse(s.join());
  }

  @Test
  void peersHaveNoDefault() {
    SettingsException e = assertThrows(SettingsException.class, () -> RaftSettings.from(with("")));

    assertTrue(e.getMessage().contains("futureq.raft.peers: must name at least one node"), e.getMessage());
  }

  @Test
  void anExplicitAddressIsWhereTheServerBinds() {
    RaftSettings s = RaftSettings.from(with("futureq.raft.address = \"0.0.0.0:6000\"\n"
        + "futureq.raft.peers { node-1 = \"10.0.0.1:6000\", node-2 = \"10.0.0.2:6000\" }"));

    assertEquals("0.0.0.0", s.host());
    assertEquals(6000, s.port());
    assertEquals(2, s.peers().size());
  }

  @Test
  void everyBadValueIsReportedWithItsKey() {
    SettingsException e = assertThrows(SettingsException.class, () -> RaftSettings.from(with(
        "futureq.raft.peers = { node-2 = \"host:99999\", node-3 = \"nohost\", node-4 = 5 }\n"
            + "futureq.raft.snapshot-threshold = 0\nfutureq.raft.request-timeout = soon")));

    String m = e.getMessage();
    assertTrue(m.contains("futureq.raft.peers.node-2: \"host:99999\" port 99999 is outside [1, 65535]"), m);
    assertTrue(m.contains("futureq.raft.peers.node-3: \"nohost\" is not host:port"), m);
    assertTrue(m.contains("futureq.raft.peers.node-4: must be a \"host:port\" string"), m);
    assertTrue(m.contains("futureq.raft.peers: must include this node (futureq.node-id = \"node-1\")"), m);
    assertTrue(m.contains("futureq.raft.address"), m);
    assertTrue(m.contains("futureq.raft.snapshot-threshold: 0 is outside"), m);
    assertTrue(m.contains("futureq.raft.request-timeout"), m);
  }

  @Test
  void aJoiningNodeNeedNotBeAmongThePeers() {
    RaftSettings s = RaftSettings.from(with("futureq.raft.join = true\nfutureq.raft.address = \"10.0.0.9:6000\"\n"
        + "futureq.raft.peers = { node-2 = \"10.0.0.2:6000\" }"));

    assertTrue(s.join());
    assertEquals(Map.of("node-2", "10.0.0.2:6000"), s.peers());
  }
}
