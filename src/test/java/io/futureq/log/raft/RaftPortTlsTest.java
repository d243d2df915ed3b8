package io.futureq.log.raft;

import static io.futureq.log.Commands.message;
import static io.futureq.log.Commands.store;
import static io.futureq.log.raft.RaftCluster.TOPIC;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.config.ClusterTlsSettings;
import io.futureq.log.proto.LogEntry;
import io.futureq.tls.PemFiles;
import io.futureq.tls.TestCertificates;
import io.futureq.tls.TestCertificates.Issued;
import io.futureq.tls.TlsContexts;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.thirdparty.io.grpc.Status;
import org.apache.ratis.thirdparty.io.grpc.StatusRuntimeException;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 27 (N1): a Raft server serves Ratis' client and admin protocols on its one port, so with cluster TLS on
 * (mutual) a process without a member certificate must get nothing through it: no write applied, no membership
 * changed, whichever member it dials and whether it speaks plaintext, TLS without a certificate, or TLS with a
 * certificate the members' CA did not sign.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class RaftPortTlsTest {
  @TempDir
  Path dir;

  private RaftCluster cluster;

  @AfterEach
  void close() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aClientWithoutAMemberCertificateGetsNoWriteAppliedAndNoMembershipChanged() throws Exception {
    Issued ca = TestCertificates.authority("cluster-ca");
    TestCertificates.writePem(dir.resolve("ca.pem"), ca.certificate());
    TestCertificates.leaf(ca, "futureq-cluster", TestCertificates.rsa())
        .write(dir.resolve("member.pem"), dir.resolve("member.key"));
    Issued rogueCa = TestCertificates.authority("rogue-ca");
    TestCertificates.leaf(rogueCa, "futureq-cluster", TestCertificates.rsa())
        .write(dir.resolve("rogue.pem"), dir.resolve("rogue.key"));
    cluster = RaftCluster.start(dir, 3, new ClusterTlsSettings(true, dir.resolve("member.pem"),
        dir.resolve("member.key"), dir.resolve("ca.pem")));
    RaftNode leader = cluster.awaitLeader();
    RaftCluster.append(leader, store(message(TOPIC, "from a member", 0)));
    Map<String, String> members = leader.status().peers();

    RaftGroup group = RaftServerFactory.group(leader.settings(), new RaftServerFactory.LeaderSpread(0, 1));
    byte[] forged = LogEntry.newBuilder().addCommands(store(message(TOPIC, "forged", 0))).build().toByteArray();
    RaftPeer rogue = RaftServerFactory.peer("rogue", "127.0.0.1:1");
    for (Parameters identity : List.of(new Parameters(), withoutCertificate(), rogueCertificate())) {
      for (RaftPeer target : group.getPeers()) {
        try (RaftClient client = forgedClient(group, target, identity)) {
          refusedByTransport(() -> client.io().send(Message.valueOf(UnsafeByteOperations.unsafeWrap(forged))),
              "a forged write to " + target.getId());
          List<RaftPeer> grown = new ArrayList<>(group.getPeers());
          grown.add(rogue);
          refusedByTransport(() -> client.admin().setConfiguration(grown),
              "a forged membership change through " + target.getId());
        }
      }
    }

    // Once a member's later write is applied everywhere, anything the forged calls had got committed before it is
    // applied too.
    RaftCluster.append(cluster.node(0), store(message(TOPIC, "from a member again", 0)));
    cluster.awaitConverged();
    cluster.assertStoresEqual(2);
    for (RaftNode node : cluster.running()) {
      assertEquals(List.of("from a member", "from a member again"), node.messagesOf(TOPIC).stream()
          .map(m -> m.getPayload().toStringUtf8()).sorted().toList(), "messages on " + node.id());
    }
    assertEquals(members, leader.status().peers(), "the Raft membership");
  }

  /**
   * Asserts that {@code call} failed before any server answered it (a server's answer, such as "not the leader",
   * would mean the request got through the TLS handshake).
   */
  private static void refusedByTransport(Executable call, String what) {
    IOException e = assertThrows(IOException.class, call, what);
    assertTrue(e.getCause() instanceof StatusRuntimeException s && s.getStatus().getCode() == Status.Code.UNAVAILABLE,
        what + ": " + e);
  }

  /** A Ratis client as anyone can write it from the public group id and addresses, one attempt at {@code target}. */
  private static RaftClient forgedClient(RaftGroup group, RaftPeer target, Parameters identity) {
    RaftProperties properties = new RaftProperties();
    RaftClientConfigKeys.Rpc.setRequestTimeout(properties, TimeDuration.valueOf(5, TimeUnit.SECONDS));
    return RaftClient.newBuilder().setRaftGroup(group).setLeaderId(target.getId()).setProperties(properties)
        .setParameters(identity).setRetryPolicy(RetryPolicies.noRetry()).build();
  }

  /** TLS that trusts the members' CA (so the server's certificate checks out) and presents no certificate. */
  private Parameters withoutCertificate() throws Exception {
    Parameters p = new Parameters();
    GrpcConfigKeys.TLS.setConf(p, new GrpcTlsConfig(null,
        TlsContexts.trustManager(PemFiles.certificates(dir.resolve("ca.pem"))), false));
    return p;
  }

  /** TLS that trusts the members' CA and presents a certificate of the same name from another CA. */
  private Parameters rogueCertificate() throws Exception {
    Parameters p = new Parameters();
    GrpcConfigKeys.TLS.setConf(p, new GrpcTlsConfig(
        TlsContexts.keyManager(PemFiles.keyAndChain(dir.resolve("rogue.pem"), dir.resolve("rogue.key"))),
        TlsContexts.trustManager(PemFiles.certificates(dir.resolve("ca.pem"))), true));
    return p;
  }
}
