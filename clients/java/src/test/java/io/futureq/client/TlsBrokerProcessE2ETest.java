package io.futureq.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.grpc.Status;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * This artifact's OkHttp transport over TLS with a client certificate, against a broker process that requires one.
 * Certificates come from the JDK's keytool. Skipped without {@code futureq.broker.classpath}, as
 * {@link BrokerProcessE2ETest}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 180, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class TlsBrokerProcessE2ETest {
  private static final String PASSWORD = "changeit";
  private Path dir;
  private Process broker;
  private int port;

  @BeforeAll
  void startBroker(@TempDir Path dir) throws Exception {
    String classPath = System.getProperty("futureq.broker.classpath", "");
    assumeTrue(!classPath.isBlank(), "no futureq.broker.classpath: run through the root build (mvn -B verify)");
    this.dir = dir;
    keytool("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-dname", "CN=client-test-ca", "-ext", "bc:c",
        "-validity", "2", "-keystore", "ca.p12");
    keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", "ca.p12", "-file", "ca.pem");
    issue("server");
    issue("app");
    port = freePort();
    Path conf = dir.resolve("broker.conf");
    Files.writeString(conf, String.join("\n",
        "futureq.storage.engine = memory",
        "futureq.api.host = 127.0.0.1",
        "futureq.api.port = " + port,
        "futureq.management.port = " + freePort(),
        "futureq.metrics.enabled = false",
        "futureq.console.enabled = false",
        "futureq.cluster.remoting.port = 0",
        "futureq.security.tls.enabled = true",
        "futureq.security.tls.cert-file = \"" + dir.resolve("server.pem") + "\"",
        "futureq.security.tls.key-file = \"" + dir.resolve("server.key") + "\"",
        "futureq.security.tls.client-ca-file = \"" + dir.resolve("ca.pem") + "\""));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    broker = new ProcessBuilder(java, "-Xmx512m", "-cp", classPath, "io.futureq.cli.FutureqCommand", "server",
        "--config", conf.toString()).redirectErrorStream(true)
        .redirectOutput(dir.resolve("broker.log").toFile()).start();
    try (FutureQClient client = client(true)) {
      long deadline = System.currentTimeMillis() + 90_000;
      while (true) {
        try {
          client.clusterInfo().get(5, TimeUnit.SECONDS);
          return;
        } catch (ExecutionException e) {
          if (!broker.isAlive() || System.currentTimeMillis() > deadline) {
            throw new AssertionError("broker did not start: " + Files.readString(dir.resolve("broker.log")), e);
          }
          Thread.sleep(200);
        }
      }
    }
  }

  @AfterAll
  void stopBroker() throws Exception {
    if (broker != null) {
      broker.destroy();
      broker.waitFor(30, TimeUnit.SECONDS);
      broker.destroyForcibly();
    }
  }

  @Test
  void publishesAndConsumesOverTlsWithAClientCertificate() throws Exception {
    try (FutureQClient client = client(true)) {
      FutureQConsumer consumer = client.subscribe("tls", "g", ConsumerOptions.defaults());
      consumer.subscribed().get(30, TimeUnit.SECONDS);
      client.producer(ProducerOptions.defaults()).send(OutgoingMessage.to("tls").payload("sealed").build())
          .get(30, TimeUnit.SECONDS);
      List<ReceivedMessage> got = new ArrayList<>();
      long deadline = System.currentTimeMillis() + 30_000;
      while (got.isEmpty() && System.currentTimeMillis() < deadline) {
        got.addAll(consumer.receive(1, Duration.ofSeconds(1)));
      }
      assertEquals(1, got.size());
      assertEquals("sealed", new String(got.get(0).payload(), StandardCharsets.UTF_8));
      got.get(0).ack();
    }
  }

  @Test
  void withoutAClientCertificateTheBrokerRefuses() {
    try (FutureQClient client = client(false)) {
      ExecutionException e = assertThrows(ExecutionException.class,
          () -> client.clusterInfo().get(30, TimeUnit.SECONDS));
      assertEquals(Status.Code.UNAVAILABLE, assertInstanceOf(FutureQException.class, e.getCause()).code());
    }
  }

  private FutureQClient client(boolean withCertificate) {
    FutureQClient.Builder builder = FutureQClient.builder().target("127.0.0.1:" + port)
        .discoveryInterval(Duration.ZERO).requestTimeout(Duration.ofSeconds(10))
        .trustedCertificates(dir.resolve("ca.pem"));
    if (withCertificate) {
      builder.clientCertificate(dir.resolve("app.pem"), dir.resolve("app.key"));
    }
    return builder.build();
  }

  /** A key pair {@code name}, its certificate for 127.0.0.1 signed by the CA (name.pem) and its key (name.key). */
  private void issue(String name) throws Exception {
    keytool("-genkeypair", "-alias", name, "-keyalg", "EC", "-dname", "CN=" + name, "-validity", "2",
        "-keystore", name + ".p12");
    keytool("-certreq", "-alias", name, "-keystore", name + ".p12", "-file", name + ".csr");
    keytool("-gencert", "-rfc", "-alias", "ca", "-keystore", "ca.p12", "-infile", name + ".csr",
        "-outfile", name + ".pem", "-ext", "san=ip:127.0.0.1,dns:localhost", "-validity", "2");
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = new FileInputStream(dir.resolve(name + ".p12").toFile())) {
      store.load(in, PASSWORD.toCharArray());
    }
    byte[] pkcs8 = store.getKey(name, PASSWORD.toCharArray()).getEncoded();
    Files.writeString(dir.resolve(name + ".key"), "-----BEGIN PRIVATE KEY-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(pkcs8)
        + "\n-----END PRIVATE KEY-----\n");
  }

  private void keytool(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
        "-storepass", PASSWORD, "-storetype", "PKCS12"));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IOException("keytool " + String.join(" ", args) + " failed: " + output);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
