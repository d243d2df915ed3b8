package io.futureq.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.futureq.cli.FutureqCommand;
import io.futureq.client.ConsumerOptions;
import io.futureq.client.FutureQClient;
import io.futureq.client.FutureQConsumer;
import io.futureq.client.FutureQException;
import io.futureq.client.FutureQProducer;
import io.futureq.client.OutgoingMessage;
import io.futureq.client.ProducerOptions;
import io.futureq.client.ReceivedMessage;
import io.futureq.config.BrokerSettings;
import io.futureq.config.StorageEngine;
import io.futureq.tls.TestCertificates;
import io.futureq.tls.TestCertificates.Issued;
import io.grpc.Status;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The gRPC API over TLS and mTLS, with the Java client, against real brokers on loopback. */
@Timeout(120)
class TlsE2ETest {
  @TempDir
  static Path dir;
  static Issued ca;
  static Issued otherCa;
  static Issued clientCert;
  static Issued strangerCert;
  static TestBroker tls;
  static TestBroker mtls;

  @BeforeAll
  static void start() {
    ca = TestCertificates.authority("test-ca");
    otherCa = TestCertificates.authority("other-ca");
    TestCertificates.writePem(dir.resolve("ca.pem"), ca.certificate());
    TestCertificates.writePem(dir.resolve("other-ca.pem"), otherCa.certificate());
    Issued server = TestCertificates.leaf(ca, "broker", TestCertificates.ec());
    // The chain file holds the leaf and its CA, as issued bundles do; the key in SEC1 form (BEGIN EC PRIVATE KEY).
    TestCertificates.writePem(dir.resolve("server.pem"), server.certificate(), ca.certificate());
    TestCertificates.writeTraditional(dir.resolve("server.key"), server.keys());
    clientCert = TestCertificates.leaf(ca, "app", TestCertificates.ec());
    clientCert.write(dir.resolve("client.pem"), dir.resolve("client.key"));
    strangerCert = TestCertificates.leaf(otherCa, "stranger", TestCertificates.ec());
    strangerCert.write(dir.resolve("stranger.pem"), dir.resolve("stranger.key"));
    tls = TestBroker.start(StorageEngine.MEMORY, dir.resolve("tls"), tlsOn("server", null));
    mtls = TestBroker.start(StorageEngine.MEMORY, dir.resolve("mtls"), tlsOn("server", dir.resolve("ca.pem")));
  }

  @AfterAll
  static void stop() {
    for (TestBroker b : new TestBroker[] {tls, mtls}) {
      if (b != null) {
        b.close();
      }
    }
  }

  @Test
  void publishesAndDeliversOverTls() throws Exception {
    try (FutureQClient client = client(tls, b -> b.trustedCertificates(dir.resolve("ca.pem")))) {
      assertEquals("over tls", roundTrip(client, "tls-topic"));
    }
  }

  /**
   * docs/security.md's openssl recipe, as scripts/make-certs.sh runs it: its server and client certificates serve
   * mutual TLS end to end, and its member certificate is one the cluster's TLS accepts (an RSA key).
   */
  @Test
  void theOpensslRecipesCertificatesServeMutualTlsAndTheCluster() throws Exception {
    Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/openssl")), "openssl is not installed here");
    Path certs = dir.resolve("openssl");
    Process make = new ProcessBuilder("scripts/make-certs.sh", certs.toString(), "localhost", "127.0.0.1")
        .redirectErrorStream(true).start();
    String output = new String(make.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, make.waitFor(), output);
    Map<String, Object> settings = new HashMap<>(Map.of("futureq.security.tls.enabled", true,
        "futureq.security.tls.cert-file", certs.resolve("server.crt").toString(),
        "futureq.security.tls.key-file", certs.resolve("server.key").toString(),
        "futureq.security.tls.client-ca-file", certs.resolve("ca.crt").toString()));

    try (TestBroker broker = TestBroker.start(StorageEngine.MEMORY, dir.resolve("openssl-broker"), settings);
        FutureQClient client = client(broker, b -> b.trustedCertificates(certs.resolve("ca.crt"))
            .clientCertificate(certs.resolve("client.crt"), certs.resolve("client.key")))) {
      assertEquals("over tls", roundTrip(client, "openssl-topic"));
    }
    BrokerSettings member = BrokerSettings.from(ConfigFactory.parseMap(Map.of(
        "futureq.cluster.enabled", true, "futureq.cluster.tls.enabled", true,
        "futureq.cluster.tls.cert-file", certs.resolve("member.crt").toString(),
        "futureq.cluster.tls.key-file", certs.resolve("member.key").toString(),
        "futureq.cluster.tls.ca-file", certs.resolve("ca.crt").toString(),
        "futureq.raft.peers", Map.of("node-1", "127.0.0.1:50005"),
        "futureq.cluster.discovery.contact-points", List.of("127.0.0.1:8558")))
        .withFallback(BrokerSettings.load(null, Map.of())));
    assertTrue(member.cluster().tls().enabled());
  }

  @Test
  void refusesAPlaintextClientWhenTlsIsOn() {
    try (FutureQClient client = client(tls, b -> b)) {
      assertUnavailable(client, "a client without TLS gets this from a broker that requires it");
    }
  }

  @Test
  void refusesABrokerCertificateFromAnotherCa() {
    try (FutureQClient client = client(tls, b -> b.trustedCertificates(dir.resolve("other-ca.pem")))) {
      assertUnavailable(client, "the broker's certificate is not signed by a CA this client trusts");
    }
  }

  @Test
  void mutualTlsRefusesAClientWithoutCertificate() {
    try (FutureQClient client = client(mtls, b -> b.trustedCertificates(dir.resolve("ca.pem")))) {
      assertUnavailable(client, "the broker refused this client's certificate, or wants one");
    }
  }

  @Test
  void mutualTlsRefusesAClientCertificateFromAnotherCa() {
    try (FutureQClient client = client(mtls, b -> b.trustedCertificates(dir.resolve("ca.pem"))
        .clientCertificate(dir.resolve("stranger.pem"), dir.resolve("stranger.key")))) {
      assertUnavailable(client, "the broker refused this client's certificate, or wants one");
    }
  }

  @Test
  void mutualTlsServesAClientWithACertificateFromItsCa() throws Exception {
    try (FutureQClient client = client(mtls, b -> b.trustedCertificates(dir.resolve("ca.pem"))
        .clientCertificate(dir.resolve("client.pem"), dir.resolve("client.key")))) {
      assertEquals("over tls", roundTrip(client, "mtls-topic"));
    }
  }

  @Test
  void newConnectionsGetAReplacedCertificateWithoutARestart() throws Exception {
    Path certs = dir.resolve("rotating");
    TestCertificates.leaf(ca, "before", TestCertificates.rsa()).write(certs.resolve("server.pem"),
        certs.resolve("server.key"));
    Map<String, Object> settings = tlsOn("rotating/server", null);
    settings.put("futureq.security.tls.reload-interval", "1ms");
    try (TestBroker broker = TestBroker.start(StorageEngine.MEMORY, dir.resolve("rotating-data"), settings)) {
      try (FutureQClient client = client(broker, b -> b.trustedCertificates(dir.resolve("ca.pem")))) {
        client.clusterInfo().join();
      }
      // The new certificate comes from another CA, so only a client that trusts that CA can connect after.
      TestCertificates.leaf(otherCa, "after", TestCertificates.rsa()).write(certs.resolve("server.pem"),
          certs.resolve("server.key"));
      try (FutureQClient client = client(broker, b -> b.trustedCertificates(dir.resolve("other-ca.pem")))) {
        assertFalse(client.clusterInfo().join().getMembersList().isEmpty());
      }
      try (FutureQClient client = client(broker, b -> b.trustedCertificates(dir.resolve("ca.pem")))) {
        assertUnavailable(client);
      }
    }
  }

  @Test
  void theCliConnectsWithTlsAndRefusesACertificateWithoutItsKey() {
    String target = "127.0.0.1:" + mtls.node.grpcPort();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = FutureqCommand.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));

    int served = cli.execute("cluster", "--server", target, "--ca", dir.resolve("ca.pem").toString(),
        "--cert", dir.resolve("client.pem").toString(), "--cert-key", dir.resolve("client.key").toString());
    int refused = cli.execute("cluster", "--server", target, "--ca", dir.resolve("ca.pem").toString());
    int halfIdentity = cli.execute("cluster", "--server", target, "--cert", dir.resolve("client.pem").toString());

    assertEquals(0, served, err.toString());
    assertEquals(1, refused, err.toString());
    assertTrue(err.toString().contains("futureq: " + target + ": "), err.toString());
    assertEquals(2, halfIdentity, err.toString());
    assertTrue(err.toString().contains("--cert needs --cert-key"), err.toString());
  }

  static Map<String, Object> tlsOn(String serverFiles, Path clientCa) {
    Map<String, Object> values = new HashMap<>();
    values.put("futureq.security.tls.enabled", true);
    values.put("futureq.security.tls.cert-file", dir.resolve(serverFiles + ".pem").toString());
    values.put("futureq.security.tls.key-file", dir.resolve(serverFiles + ".key").toString());
    values.put("futureq.security.tls.client-ca-file", clientCa == null ? "" : clientCa.toString());
    return values;
  }

  private static FutureQClient client(TestBroker broker, UnaryOperator<FutureQClient.Builder> tls) {
    return tls.apply(FutureQClient.builder().target("127.0.0.1:" + broker.node.grpcPort())
        .discoveryInterval(Duration.ZERO).requestTimeout(Duration.ofSeconds(10))).build();
  }

  private static void assertUnavailable(FutureQClient client) {
    assertUnavailable(client, "");
  }

  /** Refused as UNAVAILABLE, with a message that says why in one line ({@code saying} in it). */
  private static void assertUnavailable(FutureQClient client, String saying) {
    CompletionException e = assertThrows(CompletionException.class, () -> client.clusterInfo().join());
    assertTrue(e.getCause() instanceof FutureQException, String.valueOf(e.getCause()));
    assertEquals(Status.Code.UNAVAILABLE, ((FutureQException) e.getCause()).code(), e.getCause().getMessage());
    assertTrue(e.getCause().getMessage().contains(saying), e.getCause().getMessage());
    assertEquals(1, e.getCause().getMessage().lines().count(), e.getCause().getMessage());
  }

  private static String roundTrip(FutureQClient client, String topic) throws Exception {
    FutureQConsumer consumer = client.subscribe(topic, "g", ConsumerOptions.defaults());
    consumer.subscribed().join();
    FutureQProducer producer = client.producer(ProducerOptions.defaults());
    producer.send(OutgoingMessage.to(topic).payload("over tls").build()).join();
    List<ReceivedMessage> got = new ArrayList<>();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (got.isEmpty() && System.nanoTime() < deadline) {
      got.addAll(consumer.receive(1, Duration.ofSeconds(1)));
    }
    assertEquals(1, got.size());
    got.get(0).ack();
    return new String(got.get(0).payload(), StandardCharsets.UTF_8);
  }
}
