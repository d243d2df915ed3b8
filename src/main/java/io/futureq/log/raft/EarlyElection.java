package io.futureq.log.raft;

import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.RaftProtos.RaftGroupIdProto;
import org.apache.ratis.proto.RaftProtos.RaftRpcRequestProto;
import org.apache.ratis.proto.RaftProtos.StartLeaderElectionReplyProto;
import org.apache.ratis.proto.RaftProtos.StartLeaderElectionRequestProto;
import org.apache.ratis.protocol.GroupInfoReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts a Raft election as soon as the leader's process is known gone ({@link PeerProcessWatch}), instead
 * of after the election timeout (between it and twice it) that a follower otherwise waits out: most of a
 * leader failover was that wait.
 *
 * <p>Only one survivor stands, the one whose log is the most up to date (the lowest id among equals), as
 * the survivors would otherwise split their votes and all wait out the timeout after all; each asks the
 * others for their last entry, and they all pick the same one. It stands the way a leader hands over
 * leadership: the start-election request a leader sends its chosen successor, here sent by this node to its
 * own server in the dead leader's name. That is safe whatever the watch got wrong: an election never
 * breaks Raft's safety (a candidate wins only with a majority and a log at least as current as theirs); a
 * live leader would only lose its term. If the survivor that should stand cannot (its term moved on) or
 * loses, the election timeout still elects one.
 */
final class EarlyElection implements PeerProcessWatch.Listener, Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(EarlyElection.class);
  /**
   * Time for the dead leader's last appends to reach the survivors before they compare logs. A log that
   * still grows after the comparison could make two stand (they would split the vote and the timeout
   * elects), none is harmed.
   */
  private static final Duration SETTLE = Duration.ofMillis(30);
  /** How long one survivor's last entry is waited for; one that does not answer is not compared. */
  private static final Duration ASK_TIMEOUT = Duration.ofMillis(500);

  private final RaftServer server;
  private final RaftGroupId groupId;
  private final RaftProperties askProperties;
  private final Parameters parameters;
  private final AtomicLong callIds = new AtomicLong();
  private RaftClient client;
  private RaftGroup clientGroup;

  /** @param groupId the group (log shard) whose leader it replaces */
  EarlyElection(RaftServer server, RaftGroupId groupId, RaftProperties properties, Parameters parameters) {
    this.server = server;
    this.groupId = groupId;
    this.askProperties = new RaftProperties(properties);
    RaftClientConfigKeys.Rpc.setRequestTimeout(askProperties, RaftServerFactory.time(ASK_TIMEOUT));
    this.parameters = parameters;
  }

  @Override
  public void gone(String id) {
    try {
      RaftServer.Division division = server.getDivision(groupId);
      DivisionInfo info = division.getInfo();
      if (!info.isFollower() || info.getLeaderId() == null || !id.equals(info.getLeaderId().toString())) {
        return; // not this node's leader that died, or this node does not follow one
      }
      Thread.sleep(SETTLE.toMillis());
      TermIndex own = division.getRaftLog().getLastEntryTermIndex();
      if (own == null) {
        return; // an empty log cannot win a vote
      }
      RaftPeerId self = server.getId();
      for (RaftPeer peer : division.getRaftConf().getCurrentPeers()) {
        if (peer.getId().equals(self) || peer.getId().toString().equals(id)) {
          continue;
        }
        TermIndex theirs = lastEntry(division, peer);
        if (theirs != null && (theirs.compareTo(own) > 0
            || theirs.compareTo(own) == 0 && peer.getId().toString().compareTo(self.toString()) < 0)) {
          LOG.info("Raft leader {} is gone; {} stands for election (last entry {}, this node's {})", id,
              peer.getId(), theirs, own);
          return;
        }
      }
      stand(division, id, own);
    } catch (IOException e) {
      LOG.info("Raft leader {} is gone; not standing early: {}", id, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Asks the peer once, for nothing but to have the client and its connection ready: the first ask of a process
   * took 200-300 ms, a failover's budget.
   */
  @Override
  public void connected(String id) {
    try {
      RaftServer.Division division = server.getDivision(groupId);
      division.getRaftConf().getCurrentPeers().stream().filter(p -> p.getId().toString().equals(id)).findFirst()
          .ifPresent(peer -> lastEntry(division, peer));
    } catch (IOException e) {
      // stopping: nothing to prepare
    }
  }

  private TermIndex lastEntry(RaftServer.Division division, RaftPeer peer) {
    try {
      GroupInfoReply reply = client(division).getGroupManagementApi(peer.getId()).info(groupId);
      return reply.getLogInfoProto().hasLastEntry() ? TermIndex.valueOf(reply.getLogInfoProto().getLastEntry())
          : null;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /**
   * One client for the asks, kept: building one and its connections took 200-300 ms of a failover's budget. Built
   * again when the group's members change, as a client only reaches the peers it was built with.
   */
  private synchronized RaftClient client(RaftServer.Division division) throws IOException {
    RaftGroup group = RaftGroup.valueOf(groupId, division.getRaftConf().getCurrentPeers());
    if (client == null || !group.equals(clientGroup)) {
      close();
      client = RaftClient.newBuilder().setRaftGroup(group).setProperties(askProperties).setParameters(parameters)
          .setRetryPolicy(RetryPolicies.noRetry()).build();
      clientGroup = group;
    }
    return client;
  }

  @Override
  public synchronized void close() throws IOException {
    if (client != null) {
      client.close();
      client = null;
    }
  }

  /** What a leader handing over sends its successor, sent to this node's own server on the dead leader's behalf. */
  private void stand(RaftServer.Division division, String deadLeader, TermIndex own) throws IOException {
    StartLeaderElectionRequestProto request = StartLeaderElectionRequestProto.newBuilder()
        .setServerRequest(RaftRpcRequestProto.newBuilder()
            .setRequestorId(RaftPeerId.valueOf(deadLeader).toByteString())
            .setReplyId(server.getId().toByteString())
            .setRaftGroupId(RaftGroupIdProto.newBuilder().setId(groupId.toByteString()))
            .setCallId(callIds.incrementAndGet()))
        .setLeaderLastEntry(own.toProto())
        .build();
    StartLeaderElectionReplyProto reply = server.startLeaderElection(request);
    LOG.info("Raft leader {} is gone: this node {} for election at once (last entry {})", deadLeader,
        reply.getServerReply().getSuccess() ? "stands" : "could not stand", own);
  }
}
