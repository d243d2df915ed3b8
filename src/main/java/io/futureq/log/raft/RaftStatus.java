package io.futureq.log.raft;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one node knows of the Raft group right now, for the admin API. Each node answers from its
 * own view: a follower's commit index and leader may lag the leader's by a heartbeat.
 *
 * @param nodeId this node
 * @param role this node's role
 * @param leaderId the leader this node follows, or empty while none is known
 * @param term this node's current term
 * @param commitIndex the last log index this node knows to be committed
 * @param appliedIndex the last log index applied to this node's store
 * @param peers voting members, node id to Raft address
 * @param listeners non-voting members that receive the log (peers being added), node id to address
 */
public record RaftStatus(String nodeId, Role role, String leaderId, long term, long commitIndex, long appliedIndex,
    Map<String, String> peers, Map<String, String> listeners) {

  public RaftStatus {
    peers = Collections.unmodifiableMap(new TreeMap<>(peers));
    listeners = Collections.unmodifiableMap(new TreeMap<>(listeners));
  }

  /** The role of a node in the group. */
  public enum Role { LEADER, FOLLOWER, CANDIDATE, LISTENER, STOPPED }
}
