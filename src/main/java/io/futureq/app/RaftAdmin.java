package io.futureq.app;

import io.futureq.api.RaftMembership;
import io.futureq.api.grpc.RaftInfo;
import io.futureq.log.raft.RaftEventLog;
import io.futureq.log.raft.RaftStatus;
import java.util.concurrent.CompletionStage;

/** Presents the Raft event log's membership to the admin API. */
final class RaftAdmin implements RaftMembership {
  private final RaftEventLog log;

  RaftAdmin(RaftEventLog log) {
    this.log = log;
  }

  @Override
  public RaftInfo status() {
    RaftStatus s = log.status();
    return RaftInfo.newBuilder().setLeaderId(s.leaderId()).setRole(s.role().name()).setTerm(s.term())
        .setCommitIndex(s.commitIndex()).setAppliedIndex(s.appliedIndex()).putAllPeers(s.peers())
        .putAllListeners(s.listeners()).build();
  }

  @Override
  public CompletionStage<Void> add(String nodeId, String raftAddress) {
    return log.addPeer(nodeId, raftAddress);
  }

  @Override
  public CompletionStage<Void> remove(String nodeId) {
    return log.removePeer(nodeId);
  }
}
