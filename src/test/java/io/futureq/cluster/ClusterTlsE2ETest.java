package io.futureq.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.typesafe.config.ConfigFactory;
import io.futureq.app.Node;
import io.futureq.client.FutureQClient;
import io.futureq.client.FutureQProducer;
import io.futureq.client.OutgoingMessage;
import io.futureq.client.ProducerOptions;
import io.futureq.testing.Await;
import io.futureq.tls.PemFiles;
import io.futureq.tls.TestCertificates;
import io.futureq.tls.TestCertificates.Issued;
import io.futureq.tls.TlsContexts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three members whose remoting (Artery tls-tcp) and Raft (Ratis gRPC) run over mutual TLS, and whose management
 * ports (health, cluster bootstrap) serve HTTPS only, to callers with a certificate; a node without a member
 * certificate cannot join them.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClusterTlsE2ETest {
  @TempDir
  Path dir;

  @Test
  void aClusterOverTlsReplicatesAndDeliversOnEveryMember() throws Exception {
    Issued ca = TestCertificates.authority("cluster-ca");
    TestCertificates.writePem(dir.resolve("ca.pem"), ca.certificate());
    // One identity for every member: Pekko requires the members' certificates to share a subject name.
    Issued member = TestCertificates.leaf(ca, "futureq-cluster", TestCertificates.rsa());
    member.write(dir.resolve("member.pem"), dir.resolve("member.key"));
    Map<String, Object> tls = new HashMap<>(Map.of("futureq.cluster.tls.enabled", true,
        "futureq.cluster.tls.cert-file", dir.resolve("member.pem").toString(),
        "futureq.cluster.tls.key-file", dir.resolve("member.key").toString(),
        "futureq.cluster.tls.ca-file", dir.resolve("ca.pem").toString()));
    // HTTPS on management with client certificates: the members only find each other (cluster bootstrap) if
    // their probes speak HTTPS, trust the CA and present their certificate.
    tls.putAll(Map.of("futureq.management.tls.enabled", true,
        "futureq.management.tls.cert-file", dir.resolve("member.pem").toString(),
        "futureq.management.tls.key-file", dir.resolve("member.key").toString(),
        "futureq.management.tls.ca-file", dir.resolve("ca.pem").toString(),
        "futureq.management.tls.require-client-certificates", true));
    try (ClusterNodes cluster = new ClusterNodes(dir, 3, tls, false)) {
      cluster.startAll();
      cluster.awaitAllReady(Duration.ofSeconds(90));
      for (int i = 0; i < cluster.size; i++) {
        assertEquals("TLSv1.3", raftHandshake(cluster.raftPorts[i], dir), "Raft port of node " + (i + 1));
        URI ready = URI.create("https://127.0.0.1:" + cluster.managementPorts[i] + "/ready");
        HttpResponse<String> answer = HttpClient.newBuilder().sslContext(memberContext(dir, true)).build()
            .send(HttpRequest.newBuilder(ready).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, answer.statusCode(), answer.body());
        assertThrows(IOException.class, () -> HttpClient.newBuilder().sslContext(memberContext(dir, false)).build()
            .send(HttpRequest.newBuilder(ready).build(), HttpResponse.BodyHandlers.ofString()),
            "a caller without a certificate is refused");
        URI plain = URI.create("http://127.0.0.1:" + cluster.managementPorts[i] + "/ready");
        assertThrows(IOException.class, () -> HttpClient.newHttpClient().send(HttpRequest.newBuilder(plain).build(),
            HttpResponse.BodyHandlers.ofString()), "plain HTTP gets no answer");
      }
      try (FutureQClient client = ClusterTopics.clientOfAll(cluster)) {
        FutureQProducer producer = client.producer(ProducerOptions.defaults());
        // Several topics spread their entities over the members, so deliveries cross remoting.
        Map<String, Set<String>> received = ClusterTopics.subscribeAndWarm(client, producer, "tls", 4, "g");
        for (String topic : received.keySet()) {
          producer.send(OutgoingMessage.to(topic).payload("after").delay(Duration.ofMillis(200)).build())
              .get(20, TimeUnit.SECONDS);
        }
        for (Map.Entry<String, Set<String>> topic : received.entrySet()) {
          ClusterTopics.awaitReceived(topic.getValue(), Set.of("warm", "after"), Duration.ofSeconds(30),
              topic.getKey());
        }
        assertEquals(3, client.clusterInfo().get(10, TimeUnit.SECONDS).getMembersCount());
      }
      aNodeWithoutAMemberCertificateCannotJoin(cluster);
    }
  }

  /**
   * Issue 27 (N2): a process that speaks remoting as "futureq", trusts the members and presents a certificate of
   * the members' subject name, but not one their CA signed, is refused at every handshake and never joins.
   */
  private void aNodeWithoutAMemberCertificateCannotJoin(ClusterNodes cluster) throws Exception {
    Issued rogueCa = TestCertificates.authority("rogue-ca");
    TestCertificates.leaf(rogueCa, "futureq-cluster", TestCertificates.rsa())
        .write(dir.resolve("rogue.pem"), dir.resolve("rogue.key"));
    Address member = Cluster.get(cluster.nodes[0].system()).selfMember().address();
    ActorSystem<Void> rogue = ActorSystem.create(Behaviors.empty(), "futureq", ConfigFactory.parseMap(Map.of(
        "pekko.actor.provider", "cluster",
        "pekko.remote.artery.transport", "tls-tcp",
        "pekko.remote.artery.canonical.hostname", "127.0.0.1",
        "pekko.remote.artery.canonical.port", 0,
        "pekko.remote.artery.ssl.ssl-engine-provider",
        "org.apache.pekko.remote.artery.tcp.ssl.RotatingKeysSSLEngineProvider",
        "pekko.remote.artery.ssl.rotating-keys-engine.cert-file", dir.resolve("rogue.pem").toString(),
        "pekko.remote.artery.ssl.rotating-keys-engine.key-file", dir.resolve("rogue.key").toString(),
        "pekko.remote.artery.ssl.rotating-keys-engine.ca-cert-file", dir.resolve("ca.pem").toString()))
        .withFallback(ConfigFactory.defaultReference()));
    try {
      Cluster.get(rogue).manager().tell(Join.create(member));
      // Long enough for several join attempts (one every few seconds) and for a member to tell the others.
      Await.holdsFor("the rogue node kept out of the cluster", Duration.ofSeconds(15), () -> {
        MemberStatus status = Cluster.get(rogue).selfMember().status();
        assertFalse(Set.of(MemberStatus.joining(), MemberStatus.weaklyUp(), MemberStatus.up()).contains(status),
            "the rogue node is " + status);
        for (Node node : cluster.nodes) {
          assertEquals(3, Cluster.get(node.system()).state().members().size(),
              "members seen by " + Cluster.get(node.system()).selfMember().address());
        }
        return true;
      });
    } finally {
      rogue.terminate();
      rogue.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  /** The protocol of a TLS handshake with a node's Raft port, as a member (certificate presented). */
  private static String raftHandshake(int port, Path dir) throws Exception {
    try (SSLSocket socket = (SSLSocket) memberContext(dir, true).getSocketFactory().createSocket("127.0.0.1", port)) {
      socket.startHandshake();
      return socket.getSession().getProtocol();
    }
  }

  /** Trusts the members' CA; presents the member certificate when {@code withCertificate}. */
  private static SSLContext memberContext(Path dir, boolean withCertificate) throws Exception {
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(withCertificate ? new KeyManager[] {TlsContexts.keyManager(PemFiles.keyAndChain(
        dir.resolve("member.pem"), dir.resolve("member.key")))} : null, new TrustManager[] {
        TlsContexts.trustManager(PemFiles.certificates(dir.resolve("ca.pem")))}, null);
    return context;
  }
}
