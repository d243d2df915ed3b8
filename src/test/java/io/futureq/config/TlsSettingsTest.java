package io.futureq.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.futureq.tls.PemFiles;
import io.futureq.tls.TestCertificates;
import io.futureq.tls.TestCertificates.Issued;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** TLS settings: what a bad or missing file says at start-up, and which binds TLS makes safe. */
class TlsSettingsTest {
  @TempDir
  static Path dir;
  static Issued ca;

  @BeforeAll
  static void certificates() {
    ca = TestCertificates.authority("settings-ca");
    TestCertificates.writePem(dir.resolve("ca.pem"), ca.certificate());
    TestCertificates.leaf(ca, "rsa", TestCertificates.rsa()).write(dir.resolve("rsa.pem"), dir.resolve("rsa.key"));
    Issued ec = TestCertificates.leaf(ca, "ec", TestCertificates.ec());
    ec.write(dir.resolve("ec.pem"), dir.resolve("ec.key"));
  }

  private static BrokerSettings settings(String hocon) {
    return BrokerSettings.from(BrokerSettings.load(ConfigFactory.parseString(hocon), null, Map.of()));
  }

  private static String refusal(String hocon) {
    return assertThrows(SettingsException.class, () -> settings(hocon)).getMessage();
  }

  private static List<String> problems(String hocon) {
    return assertThrows(SettingsException.class, () -> settings(hocon)).problems();
  }

  private static String apiTls(String cert, String key) {
    return "futureq.security.tls { enabled = true, cert-file = \"" + dir.resolve(cert) + "\", key-file = \""
        + dir.resolve(key) + "\" }\n";
  }

  /** A bind other machines reach needs both TLS and authentication (or allow-insecure). */
  @Test
  void aWiderBindNeedsTlsAndAuthentication() {
    String wide = "futureq.api.host = \"0.0.0.0\"\n";
    String auth = "futureq.security.auth { enabled = true, access-file = \"/etc/futureq/access\" }\n";
    BrokerSettings s = settings(wide + apiTls("rsa.pem", "rsa.key") + auth);
    assertTrue(s.security().tls().enabled() && s.security().auth().enabled());
    String neither = refusal(wide);
    assertTrue(neither.contains("futureq.api.host") && neither.contains("futureq.security.tls.enabled = false")
        && neither.contains("futureq.security.auth.enabled = false")
        && neither.contains("futureq.security.allow-insecure = true"), neither);
    String tlsOnly = refusal(wide + apiTls("rsa.pem", "rsa.key"));
    assertTrue(tlsOnly.contains("futureq.security.auth.enabled = false") && !tlsOnly.contains("tls.enabled = false"),
        tlsOnly);
    String authOnly = refusal(wide + auth);
    assertTrue(authOnly.contains("futureq.security.tls.enabled = false") && !authOnly.contains("auth.enabled = false"),
        authOnly);
  }

  /**
   * Issue 27 (N1, N2): Raft and remoting beyond loopback need cluster TLS (or the cluster's allow-insecure); the
   * loopback three-node configs need neither.
   */
  @Test
  void clusterPortsOtherMachinesReachNeedClusterTls() {
    String cluster = "futureq.cluster { enabled = true, discovery.contact-points = [\"127.0.0.1:8558\"] }\n"
        + "futureq.raft.peers { node-1 = \"127.0.0.1:50005\", node-2 = \"10.0.0.2:50005\" }\n";
    assertEquals("127.0.0.1:50005", settings(cluster).raft().address(), "loopback: no TLS needed");
    assertEquals(List.of("futureq.raft.address: \"0.0.0.0:50005\" can be reached from other machines, and "
        + "futureq.cluster.tls.enabled = false: turn cluster TLS on (docs/security.md), bind loopback addresses "
        + "(127.0.0.1) for a cluster on one machine, or set futureq.cluster.allow-insecure = true to let anyone who "
        + "reaches them write to the Raft log (publish, cancel, delete, change membership) and join the cluster"),
        problems(cluster + "futureq.raft.address = \"0.0.0.0:50005\""));
    String both = refusal(cluster + "futureq.raft.address = \"10.0.0.1:50005\"\n"
        + "futureq.cluster.remoting.host = \"10.0.0.1\"");
    assertTrue(both.contains("futureq.cluster.remoting.host: \"10.0.0.1\" and futureq.raft.address: "
        + "\"10.0.0.1:50005\" can be reached"), both);
    assertTrue(refusal("futureq.cluster.remoting.host = \"0.0.0.0\"").contains("futureq.cluster.remoting.host"),
        "a standalone node's remoting too: another process could join it");
    String wide = cluster + "futureq.raft.address = \"0.0.0.0:50005\"\nfutureq.cluster.remoting.host = \"0.0.0.0\"\n";
    for (int node = 1; node <= 3; node++) {
      File shipped = new File("conf/cluster-node" + node + ".conf");
      assertFalse(BrokerSettings.from(BrokerSettings.load(shipped, Map.of())).cluster().tls().enabled(),
          "README's cluster on one machine starts as shipped, without TLS: " + shipped);
    }
    assertTrue(settings(wide + "futureq.cluster.allow-insecure = true").cluster().allowInsecure());
    assertTrue(settings(wide + "futureq.cluster.tls { enabled = true, cert-file = \"" + dir.resolve("rsa.pem")
        + "\", key-file = \"" + dir.resolve("rsa.key") + "\", ca-file = \"" + dir.resolve("ca.pem") + "\" }")
        .cluster().tls().enabled());
  }

  @Test
  void tlsWithoutFilesNamesTheMissingSettings() {
    String refused = refusal("futureq.security.tls.enabled = true");
    assertTrue(refused.contains("futureq.security.tls.cert-file: must name a PEM certificate file"), refused);
    assertTrue(refused.contains("futureq.security.tls.key-file: must name a PEM private key file"), refused);
  }

  @Test
  void aMissingFileNamesItsSettingAndPath() {
    String refused = refusal(apiTls("nope.pem", "rsa.key"));
    assertTrue(refused.contains("futureq.security.tls.cert-file: " + dir.resolve("nope.pem") + ": no such file"),
        refused);
    refused = refusal(apiTls("rsa.pem", "rsa.key") + "futureq.security.tls.client-ca-file = \""
        + dir.resolve("missing-ca.pem") + "\"");
    assertTrue(refused.contains("futureq.security.tls.client-ca-file: " + dir.resolve("missing-ca.pem")), refused);
  }

  @Test
  void aKeyOfAnotherCertificateOrNoKeyAtAllIsRefused() {
    String refused = refusal(apiTls("rsa.pem", "ec.key"));
    assertTrue(refused.contains("futureq.security.tls.key-file: " + dir.resolve("ec.key")
        + ": does not belong to the first certificate of " + dir.resolve("rsa.pem")), refused);
    refused = refusal(apiTls("rsa.pem", "rsa.pem"));
    assertTrue(refused.contains("futureq.security.tls.key-file: " + dir.resolve("rsa.pem")
        + ": holds no PEM private key"), refused);
    refused = refusal(apiTls("rsa.key", "rsa.key"));
    assertTrue(refused.contains("futureq.security.tls.cert-file: " + dir.resolve("rsa.key")), refused);
  }

  @Test
  void clusterTlsNeedsAnRsaKeyAndItsCa() {
    String prefix = "futureq.cluster.tls { enabled = true, cert-file = \"" + dir.resolve("ec.pem")
        + "\", key-file = \"" + dir.resolve("ec.key") + "\" }\n";
    String refused = refusal(prefix);
    assertTrue(refused.contains("futureq.cluster.tls.ca-file: must name the PEM certificate of the CA"), refused);
    refused = refusal(prefix + "futureq.cluster.tls.ca-file = \"" + dir.resolve("ca.pem") + "\"");
    assertTrue(refused.contains("futureq.cluster.tls.key-file: " + dir.resolve("ec.key") + ": must be an RSA key"),
        refused);
    BrokerSettings ok = settings("futureq.cluster.tls { enabled = true, cert-file = \"" + dir.resolve("rsa.pem")
        + "\", key-file = \"" + dir.resolve("rsa.key") + "\", ca-file = \"" + dir.resolve("ca.pem") + "\" }");
    assertTrue(ok.cluster().tls().enabled());
  }

  @Test
  void keysReadInEachPemFormOperatorsHave() throws Exception {
    var rsa = TestCertificates.rsa();
    TestCertificates.writeTraditional(dir.resolve("pkcs1.key"), rsa);
    assertTrue(Files.readString(dir.resolve("pkcs1.key")).startsWith("-----BEGIN RSA PRIVATE KEY-----"));
    assertEquals(rsa.getPrivate(), PemFiles.privateKey(dir.resolve("pkcs1.key")));
    var ec = TestCertificates.ec();
    TestCertificates.writeTraditional(dir.resolve("sec1.key"), ec);
    assertTrue(Files.readString(dir.resolve("sec1.key")).startsWith("-----BEGIN EC PRIVATE KEY-----"));
    assertEquals("EC", PemFiles.privateKey(dir.resolve("sec1.key")).getAlgorithm());
    TestCertificates.writePkcs8(dir.resolve("pkcs8.key"), ec);
    assertTrue(Files.readString(dir.resolve("pkcs8.key")).startsWith("-----BEGIN PRIVATE KEY-----"));
    assertEquals(ec.getPrivate(), PemFiles.privateKey(dir.resolve("pkcs8.key")));
  }

  @Test
  void managementHttpsNamesWhatIsMissing() {
    String refused = refusal("futureq.management.tls.enabled = true");
    assertTrue(refused.contains("futureq.management.tls.cert-file: must name a PEM certificate file"), refused);
    assertTrue(refused.contains("futureq.management.tls.key-file: must name a PEM private key file"), refused);
    String files = "futureq.management.tls { enabled = true, cert-file = \"" + dir.resolve("ec.pem")
        + "\", key-file = \"" + dir.resolve("ec.key") + "\" }\n";
    refused = refusal(files + "futureq.management.tls.require-client-certificates = true");
    assertTrue(refused.contains("futureq.management.tls.ca-file: must name the PEM certificate of the CA"), refused);
    refused = refusal(files + "futureq.management.tls.ca-file = \"" + dir.resolve("no-ca.pem") + "\"");
    assertTrue(refused.contains("futureq.management.tls.ca-file: " + dir.resolve("no-ca.pem")), refused);
    ManagementTlsSettings ok = settings(files).security().managementTls();
    assertTrue(ok.enabled() && !ok.requireClientCertificates() && ok.caFile() == null, ok.toString());
  }
}
