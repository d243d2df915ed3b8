package io.futureq.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.futureq.api.grpc.ClusterInfo;
import io.futureq.api.grpc.Member;
import java.util.List;
import org.junit.jupiter.api.Test;

class BrokersTest {
  @Test
  void membersMarkedUnreachableAreTriedAfterTheLiveOnesAndSeedsStayFirst() {
    Brokers brokers = new Brokers(List.of("seed:1"));
    brokers.learn(ClusterInfo.newBuilder()
        .addMembers(Member.newBuilder().setGrpcAddress("dead:2").setReachable(false))
        .addMembers(Member.newBuilder().setGrpcAddress("live:3").setReachable(true))
        .addMembers(Member.newBuilder().setGrpcAddress("seed:1").setReachable(true))
        .addMembers(Member.newBuilder().setGrpcAddress("0.0.0.0:4").setReachable(true))
        .build());
    assertEquals(List.of("seed:1", "live:3", "dead:2"), brokers.known());
    brokers.close();
  }
}
