package io.futureq.log.raft;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.thirdparty.com.google.protobuf.TextFormat;

/**
 * What this node's replica (its Ratis division of the group) knows now: its role, the leader, the members. Each
 * answer is read afresh from Ratis, from any thread. A server that is closed or failed has no division to read;
 * each question says what it answers then.
 */
final class ReplicaView {
  private final RaftServer server;
  private final RaftGroupId groupId;
  private final String nodeId;
  private final LongSupplier appliedIndex;

  /** @param appliedIndex the index of the last entry applied to this node's store */
  ReplicaView(RaftServer server, RaftGroupId groupId, String nodeId, LongSupplier appliedIndex) {
    this.server = server;
    this.groupId = groupId;
    this.nodeId = nodeId;
    this.appliedIndex = appliedIndex;
  }

  /** The index of the last entry applied to this node's store. */
  long appliedIndex() {
    return appliedIndex.getAsLong();
  }

  /** The leader this replica follows (or is), or null while it knows none. */
  RaftPeerId leader() {
    try {
      return division().getInfo().getLeaderId();
    } catch (IOException e) {
      return null;
    }
  }

  /** This node's id. */
  String nodeId() {
    return nodeId;
  }

  /** Whether this replica leads and has applied its term's first entry, so it takes entries; false once stopped. */
  boolean leaderReady() {
    DivisionInfo info = aliveInfo();
    return info != null && info.isLeaderReady();
  }

  /** Whether this replica leads the group now; false once stopped. */
  boolean leading() {
    DivisionInfo info = aliveInfo();
    return info != null && info.isLeader();
  }

  /** The division's info while it is alive, else null. */
  private DivisionInfo aliveInfo() {
    try {
      DivisionInfo info = division().getInfo();
      return info.isAlive() ? info : null;
    } catch (IOException e) {
      return null;
    }
  }

  /** See {@link RaftEventLog#status()}. */
  RaftStatus status() {
    try {
      RaftServer.Division division = division();
      DivisionInfo info = division.getInfo();
      RaftPeerId leader = info.getLeaderId();
      return new RaftStatus(nodeId, role(info), leader == null ? "" : leader.toString(),
          info.getCurrentTerm(), division.getRaftLog().getLastCommittedIndex(), appliedIndex.getAsLong(),
          RaftServerFactory.addresses(division.getRaftConf().getCurrentPeers()),
          RaftServerFactory.addresses(division.getRaftConf().getCurrentPeers(RaftPeerRole.LISTENER)));
    } catch (IOException e) {
      return new RaftStatus(nodeId, RaftStatus.Role.STOPPED, "", 0, 0, appliedIndex.getAsLong(), Map.of(),
          Map.of());
    }
  }

  /** See {@link RaftEventLog#ratisRoleInfo()}; says why there is none instead of failing. */
  String roleInfo() {
    try {
      return TextFormat.shortDebugString(division().getInfo().getRoleInfoProto());
    } catch (IOException | RuntimeException e) {
      return "no role info: " + e;
    }
  }

  /** Whether the voters {@code seenGone} does not hold, this node included, are a majority; false once stopped. */
  boolean majorityAlive(Predicate<String> seenGone) {
    try {
      Collection<RaftPeer> voters = division().getRaftConf().getCurrentPeers();
      long alive = voters.stream().filter(p -> !seenGone.test(p.getId().toString())).count();
      return alive * 2 > voters.size();
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Voters and listeners of the group but this node, id to Raft address.
   *
   * @throws UncheckedIOException once stopped
   */
  Map<String, String> otherPeers() {
    RaftServer.Division division;
    try {
      division = division();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Map<String, String> peers = new TreeMap<>(RaftServerFactory.addresses(division.getRaftConf().getCurrentPeers()));
    peers.putAll(RaftServerFactory.addresses(division.getRaftConf().getCurrentPeers(RaftPeerRole.LISTENER)));
    peers.remove(nodeId);
    return peers;
  }

  private RaftServer.Division division() throws IOException {
    return server.getDivision(groupId);
  }

  private static RaftStatus.Role role(DivisionInfo info) {
    if (!info.isAlive()) {
      return RaftStatus.Role.STOPPED;
    }
    switch (info.getCurrentRole()) {
      case LEADER: return RaftStatus.Role.LEADER;
      case CANDIDATE: return RaftStatus.Role.CANDIDATE;
      case LISTENER: return RaftStatus.Role.LISTENER;
      default: return RaftStatus.Role.FOLLOWER;
    }
  }
}
