package io.futureq.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BrokerSettingsTest {
  @TempDir
  Path dir;

  private static Config with(String hocon) {
    return ConfigFactory.parseString(hocon).withFallback(BrokerSettings.load(null, Map.of()));
  }

  @Test
  void defaultsAreValidAndMatchTheReference() {
    BrokerSettings s = BrokerSettings.from(BrokerSettings.load(null, Map.of()));
    assertEquals(8443, s.api().port());
    assertEquals(9090, s.metrics().port());
    assertEquals("127.0.0.1", s.metrics().host(), "metrics, like the API, on loopback unless told (issue 27, N5)");
    assertEquals(8558, s.management().port());
    assertEquals(1024L * 1024, s.api().maxPayloadBytes());
    assertEquals(Duration.ofMillis(1), s.topic().bucketSize());
    assertEquals(Duration.ofMillis(100), s.topic().deleteBatchInterval());
    assertEquals(Duration.ofDays(3650), s.api().maxDelay());
    assertEquals(Path.of("./data"), s.storage().dataDir());
    assertTrue(s.storage().fsync());
    assertEquals(StorageEngine.ROCKSDB, s.storage().engine());
  }

  /** A misspelt variable was ignored, the default left in force without a word. */
  @Test
  void aFutureqVariableThatIsNoSettingIsRefusedNamingTheClosestOne() {
    SettingsException e = assertThrows(SettingsException.class, () -> BrokerSettings.load(null,
        Map.of("FUTUREQ_API_PROT", "9000", "FUTUREQ_API_PORT", "9001", "FUTUREQ_TOKEN", "t",
            "FUTUREQ_LOG_LEVEL", "DEBUG", "FUTUREQ_RAFT_PEERS_NODE_1", "x", "OTHER_API_PROT", "1")));

    assertEquals(List.of("FUTUREQ_API_PROT: no such setting (did you mean FUTUREQ_API_PORT?); conf/futureq.conf lists "
        + "the settings, README the variables", "FUTUREQ_RAFT_PEERS_NODE_1: no such setting (did you mean "
        + "FUTUREQ_RAFT_PEERS?); conf/futureq.conf lists the settings, README the variables"), e.problems());
    assertEquals(9001, BrokerSettings.from(BrokerSettings.load(null, Map.of("FUTUREQ_API_PORT", "9001",
        "FUTUREQ_SERVER", "x:1", "FUTUREQ_CLASSPATH", "/x"))).api().port());
  }

  @Test
  void theStorageEngineIsRocksdbOrMemory() {
    assertEquals(StorageEngine.MEMORY,
        BrokerSettings.from(with("futureq.storage.engine = memory")).storage().engine());
    assertEquals(StorageEngine.MEMORY, BrokerSettings.from(BrokerSettings.load(null,
        Map.of("FUTUREQ_STORAGE_ENGINE", "memory"))).storage().engine());

    SettingsException e = assertThrows(SettingsException.class,
        () -> BrokerSettings.from(with("futureq.storage.engine = ram")));
    assertEquals(1, e.problems().size(), e.getMessage());
    assertEquals("futureq.storage.engine: must be \"rocksdb\" or \"memory\", got \"ram\"", e.problems().get(0));
  }

  @Test
  void theMemoryEngineIsRefusedInClusteredMode() {
    Config clustered = with("futureq.storage.engine = memory\nfutureq.cluster.enabled = true\n"
        + "futureq.raft.peers { node-1 = \"127.0.0.1:50005\" }\n"
        + "futureq.cluster.discovery.contact-points = [\"127.0.0.1:8558\"]");

    SettingsException e = assertThrows(SettingsException.class, () -> BrokerSettings.from(clustered));

    assertEquals(1, e.problems().size(), e.getMessage());
    assertTrue(e.problems().get(0).startsWith("futureq.storage.engine: memory runs standalone only"), e.getMessage());
  }

  @Test
  void theRemovalMarginMustOutlastTheRaftLease() {
    String clustered = "futureq.cluster.enabled = true\n"
        + "futureq.raft.peers { node-1 = \"127.0.0.1:50005\" }\n"
        + "futureq.cluster.discovery.contact-points = [\"127.0.0.1:8558\"]\n";
    assertEquals(Duration.ofSeconds(1), BrokerSettings.from(with(clustered)).raft().electionTimeout());

    SettingsException e = assertThrows(SettingsException.class,
        () -> BrokerSettings.from(with(clustered + "pekko.cluster.down-removal-margin = 500ms")));
    assertEquals(1, e.problems().size(), e.getMessage());
    assertEquals("pekko.cluster.down-removal-margin: must be longer than futureq.raft.election-timeout (1000 ms), "
        + "the lease after which a cut-off node stops delivering; got 500 ms", e.problems().get(0));

    e = assertThrows(SettingsException.class, () -> BrokerSettings.from(with(clustered
        + "pekko.cluster.down-removal-margin = off\npekko.cluster.split-brain-resolver.stable-after = 1s")));
    assertTrue(e.problems().get(0).startsWith("pekko.cluster.split-brain-resolver.stable-after: must be longer"),
        e.getMessage());
    // Standalone has no lease and no resolver decisions to make.
    BrokerSettings.from(with("pekko.cluster.down-removal-margin = 500ms"));
  }

  @Test
  void everyBadValueIsReportedWithItsKey() {
    SettingsException e = assertThrows(SettingsException.class, () -> BrokerSettings.from(with(
        "futureq.api.port = -1\nfutureq.topic.read-chunk = 0\nfutureq.group.in-flight-timeout = soon\n"
            + "futureq.api.min-ack-level = SOMETIMES\nfutureq.storage.data-dir = \"\"")));
    assertEquals(5, e.problems().size(), e.getMessage());
    assertTrue(e.getMessage().contains("futureq.api.port: -1 is outside [0, 65535]"), e.getMessage());
    assertTrue(e.getMessage().contains("futureq.topic.read-chunk"));
    assertTrue(e.getMessage().contains("futureq.group.in-flight-timeout"));
    assertTrue(e.getMessage().contains("futureq.api.min-ack-level"));
    assertTrue(e.getMessage().contains("futureq.storage.data-dir: must not be empty"));
  }

  /** Issue 12, safe by default: the API has no authentication yet, so it serves only loopback unless told. */
  @Test
  void theApiListensOnLoopbackByDefaultAndAWiderBindNeedsAllowInsecure() {
    assertEquals("127.0.0.1", BrokerSettings.from(BrokerSettings.load(null, Map.of())).api().host());
    SettingsException refused = assertThrows(SettingsException.class,
        () -> BrokerSettings.from(with("futureq.api.host = \"0.0.0.0\"")));
    assertTrue(refused.getMessage().contains("futureq.api.host: \"0.0.0.0\" can be reached from other machines")
        && refused.getMessage().contains("futureq.security.allow-insecure = true"), refused.getMessage());
    assertEquals("0.0.0.0", BrokerSettings.from(with("futureq.api.host = \"0.0.0.0\"\n"
        + "futureq.security.allow-insecure = true")).api().host());
    assertEquals("localhost", BrokerSettings.from(with("futureq.api.host = \"localhost\"")).api().host());
  }

  @Test
  void theConsoleIsOnAtLoopbackByDefaultAndAWiderBindNeedsTheApisTlsAndTokensOrAllowInsecure() {
    BrokerSettings defaults = BrokerSettings.from(BrokerSettings.load(null, Map.of()));
    assertEquals(new EndpointSettings(true, "127.0.0.1", 8088), defaults.console());
    SettingsException refused = assertThrows(SettingsException.class,
        () -> BrokerSettings.from(with("futureq.console.host = \"0.0.0.0\"")));
    assertTrue(refused.getMessage().contains("futureq.console.host: \"0.0.0.0\" can be reached from other machines"),
        refused.getMessage());
    assertEquals("0.0.0.0", BrokerSettings.from(with("futureq.console.host = \"0.0.0.0\"\n"
        + "futureq.security.allow-insecure = true")).console().host());
    assertEquals("0.0.0.0", BrokerSettings.from(with("futureq.console { enabled = false, host = \"0.0.0.0\" }"))
        .console().host(), "a console that is off binds nothing");
    assertTrue(assertThrows(SettingsException.class, () -> BrokerSettings.from(with("futureq.console.port = 70000")))
        .getMessage().contains("futureq.console.port"));
  }

  /**
   * Issue 12: authentication alone does not open a wider bind (tokens would cross in clear; TlsSettingsTest
   * has the case with TLS too); on, it needs a token source.
   */
  @Test
  void authenticationIsOffByDefaultAndNeedsATokenSource() {
    BrokerSettings authenticated = BrokerSettings.from(with("futureq.security.auth.enabled = true\n"
        + "futureq.security.auth.access-file = \"/etc/futureq/access\""));
    assertEquals(Path.of("/etc/futureq/access"), authenticated.security().auth().accessFile());
    SettingsException wide = assertThrows(SettingsException.class, () -> BrokerSettings.from(with(
        "futureq.api.host = \"0.0.0.0\"\nfutureq.security.auth.enabled = true\n"
        + "futureq.security.auth.access-file = \"/etc/futureq/access\"")));
    assertTrue(wide.getMessage().contains("futureq.security.tls.enabled = false"), wide.getMessage());
    assertFalse(BrokerSettings.from(BrokerSettings.load(null, Map.of())).security().auth().enabled(), "off by default");
    SettingsException noSource = assertThrows(SettingsException.class,
        () -> BrokerSettings.from(with("futureq.security.auth.enabled = true")));
    assertTrue(noSource.getMessage().contains("futureq.security.auth.enabled: set futureq.security.auth.access-file, "
        + "futureq.security.auth.jwt.public-key-file or both"), noSource.getMessage());
  }

  @Test
  void advertisedAddressIsDialableByDefault() {
    BrokerSettings wildcardBind = BrokerSettings.from(with("futureq.api.host = \"0.0.0.0\"\n"
        + "futureq.security.allow-insecure = true"));
    assertEquals("0.0.0.0", wildcardBind.api().host());
    assertEquals("127.0.0.1:8443", wildcardBind.api().advertised().at(8443), "the remoting host, not 0.0.0.0");
    assertEquals("10.1.2.3:8443", BrokerSettings.from(with("futureq.cluster.remoting.host = \"10.1.2.3\"\n"
        + "futureq.api.host = \"0.0.0.0\"\nfutureq.security.allow-insecure = true\n"
        + "futureq.cluster.allow-insecure = true")).api().advertised().at(8443));
    assertEquals("127.0.0.2:9000", BrokerSettings.from(with("futureq.api.host = \"127.0.0.2\""))
        .api().advertised().at(9000), "a specific bind host is dialable as it is");
  }

  @Test
  void advertisedAddressMayNameHostAndPort() {
    assertEquals("broker-1.example:8443", BrokerSettings.from(with(
        "futureq.api.advertised-address = \"broker-1.example\"")).api().advertised().at(8443));
    assertEquals("gw.example:443", BrokerSettings.from(with(
        "futureq.api.advertised-address = \"gw.example:443\"")).api().advertised().at(8443));
    assertEquals("[fd00::1]:8443", BrokerSettings.from(with(
        "futureq.api.advertised-address = \"[fd00::1]\"")).api().advertised().at(8443));
  }

  @Test
  void advertisedAddressRefusesWildcardsAndBadPorts() {
    SettingsException e = assertThrows(SettingsException.class, () -> BrokerSettings.from(with(
        "futureq.api.advertised-address = \"0.0.0.0:8443\"")));
    assertTrue(e.getMessage().contains("futureq.api.advertised-address: '0.0.0.0:8443' is a wildcard"),
        e.getMessage());
    e = assertThrows(SettingsException.class, () -> BrokerSettings.from(with(
        "futureq.api.advertised-address = \"host:99999\"")));
    assertTrue(e.getMessage().contains("futureq.api.advertised-address: port '99999'"), e.getMessage());
  }

  @Test
  void crossFieldRulesAreChecked() {
    SettingsException e = assertThrows(SettingsException.class, () -> BrokerSettings.from(with(
        "futureq.api.max-payload-size = 2MiB\nfutureq.api.max-batch-size = 1MiB")));
    assertTrue(e.getMessage().contains("futureq.api.max-payload-size: must not exceed"), e.getMessage());
    e = assertThrows(SettingsException.class, () -> BrokerSettings.from(with(
        "futureq.api.idle-timeout = 10s\nfutureq.api.keepalive-interval = 10s")));
    assertTrue(e.getMessage().contains("futureq.api.keepalive-interval: must be shorter than futureq.api.idle-timeout"),
        e.getMessage());
  }

  @Test
  void environmentOverridesTheFileAndTheFileOverridesDefaults() throws Exception {
    File file = dir.resolve("my.conf").toFile();
    Files.writeString(file.toPath(), "futureq.api.port = 9000\nfutureq.group.max-deliveries = 3\n");
    Config config = BrokerSettings.load(file, Map.of("FUTUREQ_API_PORT", "9100",
        "FUTUREQ_API_MAX_IN_FLIGHT", "500", "FUTUREQ_JOURNAL_APPLY_TIMEOUT", "2s"));
    BrokerSettings s = BrokerSettings.from(config);
    assertEquals(Duration.ofSeconds(2), config.getDuration("futureq.journal.apply-timeout"));
    assertEquals(9100, s.api().port());
    assertEquals(500, s.api().maxInFlight());
    assertEquals(500, s.api().defaultMaxInFlight(), "the default (1000) is capped at a lower limit");
    assertEquals(16L << 20, s.api().defaultMaxInFlightBytes());
    assertEquals(1L << 30, s.api().maxInFlightBytes());
    assertEquals(3, s.group().maxDeliveries());
  }

  @Test
  void aKeyThatIsNoSettingIsReportedWithTheClosestSetting() {
    SettingsException e = assertThrows(SettingsException.class, () -> BrokerSettings.from(with(
        "futureq.group.in-flight-timout = 5s\nfutureq.api.prot = 9000\nfutureq.api.port = 9000")));
    assertEquals(List.of(
        "futureq.api.prot: no such setting (did you mean futureq.api.port?); conf/futureq.conf lists them all",
        "futureq.group.in-flight-timout: no such setting (did you mean futureq.group.in-flight-timeout?); "
            + "conf/futureq.conf lists them all"), e.problems().stream().sorted().toList());
  }

  @Test
  void aRetiredSettingIsIgnoredSoThatAnOlderConfigStillStarts() {
    BrokerSettings s = BrokerSettings.from(with("futureq.cluster.enabled = true\n"
        + "futureq.cluster.allow-insecure = true\n"
        + "futureq.raft.peers { node-1 = \"127.0.0.1:50005\" }\n"
        + "futureq.cluster.discovery.contact-points = [\"127.0.0.1:8558\"]\n"
        + "futureq.raft.max-outstanding-entries = 16"));

    assertEquals(Map.of("node-1", "127.0.0.1:50005"), s.raft().peers());
  }

  @Test
  void theNodesOfMapSettingsAreTheUsersOwnKeys() {
    BrokerSettings s = BrokerSettings.from(with("futureq.cluster.enabled = true\n"
        + "futureq.cluster.allow-insecure = true\n"
        + "futureq.raft.peers { node-1 = \"10.0.0.1:50005\", node-2 = \"10.0.0.2:50005\" }\n"
        + "futureq.cluster.discovery.contact-points = [\"10.0.0.1:8558\"]"));
    assertEquals(Map.of("node-1", "10.0.0.1:50005", "node-2", "10.0.0.2:50005"), s.raft().peers());
  }

  @Test
  void environmentVariablesSetListAndMapSettings() {
    BrokerSettings s = BrokerSettings.from(BrokerSettings.load(null, Map.of(
        "FUTUREQ_CLUSTER_ENABLED", "true", "FUTUREQ_CLUSTER_ALLOW_INSECURE", "true",
        "FUTUREQ_CLUSTER_DISCOVERY_CONTACT_POINTS", "10.0.0.1:8558, 10.0.0.2:8558,10.0.0.3:8558",
        "FUTUREQ_RAFT_PEERS", "node-1=10.0.0.1:50005, node-2=10.0.0.2:50005,node-3=10.0.0.3:50005")));
    assertEquals(List.of("10.0.0.1:8558", "10.0.0.2:8558", "10.0.0.3:8558"),
        s.cluster().contactPoints());
    assertEquals(Map.of("node-1", "10.0.0.1:50005", "node-2", "10.0.0.2:50005", "node-3", "10.0.0.3:50005"),
        s.raft().peers());

    BrokerSettings hocon = BrokerSettings.from(BrokerSettings.load(null, Map.of(
        "FUTUREQ_CLUSTER_ENABLED", "true", "FUTUREQ_CLUSTER_ALLOW_INSECURE", "true",
        "FUTUREQ_CLUSTER_DISCOVERY_CONTACT_POINTS", "[\"10.0.0.1:8558\"]",
        "FUTUREQ_RAFT_PEERS", "{ node-1 = \"10.0.0.1:50005\" }")));
    assertEquals(List.of("10.0.0.1:8558"), hocon.cluster().contactPoints());
    assertEquals(Map.of("node-1", "10.0.0.1:50005"), hocon.raft().peers());
  }

  @Test
  void aMapVariableThatIsNotNameValuePairsIsAConfigurationError() {
    ConfigException e = assertThrows(ConfigException.class,
        () -> BrokerSettings.load(null, Map.of("FUTUREQ_RAFT_PEERS", "10.0.0.1:50005")));
    assertTrue(e.getMessage().contains("FUTUREQ_RAFT_PEERS: '10.0.0.1:50005' is not NAME=VALUE"), e.getMessage());
  }

  @Test
  void pekkoSettingsFollowTheFutureqKeys() {
    Config config = BrokerSettings.load(null, Map.of("FUTUREQ_MANAGEMENT_PORT", "18558"));
    assertEquals(18558, config.getInt("pekko.management.http.port"));
    // Due wake-ups have their own precise timer; Pekko's keeps its default tick.
    assertEquals(Duration.ofMillis(10), config.getDuration("pekko.scheduler.tick-duration"));
  }
}
