package io.futureq.client;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.api.grpc.ClusterInfo;
import io.futureq.api.grpc.GetClusterInfoRequest;
import io.futureq.api.grpc.Member;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.Status;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Discovery against a broker that has just started: its first answers name the other members but not
 * yet their gRPC addresses (they are learnt by gossip). The broker here is a real gRPC server on
 * loopback answering GetClusterInfo the way such a broker does, first without, then with the peer's
 * address.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DiscoveryTest {
  /** The scripted broker's own address, once it listens. */
  private static volatile String self = "";

  @Test
  void anAnswerWithoutEveryMembersAddressIsAskedAgainSoonNotAfterTheInterval() throws Exception {
    AtomicInteger asked = new AtomicInteger();
    ServerServiceDefinition admin = ServerServiceDefinition.builder("futureq.v1.Admin")
        .addMethod(Rpc.CLUSTER_INFO, (ServerCall<GetClusterInfoRequest, ClusterInfo> answer, Metadata headers) -> {
          answer.request(1);
          return new ServerCall.Listener<GetClusterInfoRequest>() {
            @Override
            public void onHalfClose() {
              Member.Builder peer = Member.newBuilder().setNodeId("node-2").setStatus("Up").setReachable(true);
              if (asked.incrementAndGet() > 2) {
                peer.setGrpcAddress("127.0.0.1:1");
              }
              answer.sendHeaders(new Metadata());
              answer.sendMessage(ClusterInfo.newBuilder().setMode("cluster")
                  .addMembers(Member.newBuilder().setNodeId("node-1").setStatus("Up").setReachable(true)
                      .setSelf(true).setGrpcAddress(self))
                  .addMembers(peer).build());
              answer.close(Status.OK, new Metadata());
            }
          };
        }).build();
    Server server = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create()).addService(admin).build()
        .start();
    self = "127.0.0.1:" + server.getPort();
    try (FutureQClient client = FutureQClient.builder().target(self).discoveryInterval(Duration.ofMinutes(10))
        .build()) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (!client.targets().contains("127.0.0.1:1") && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertTrue(client.targets().contains("127.0.0.1:1"), "after " + asked.get() + " answers the client knows only "
          + client.targets() + "; the next round would be in 10 minutes");
    } finally {
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
