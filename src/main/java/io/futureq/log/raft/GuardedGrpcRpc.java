package io.futureq.log.raft;

import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcFactory;
import org.apache.ratis.grpc.server.GrpcLogAppender;
import org.apache.ratis.rpc.RpcFactory;
import org.apache.ratis.rpc.RpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.leader.FollowerInfo;
import org.apache.ratis.server.leader.LeaderState;
import org.apache.ratis.server.leader.LogAppender;
import org.apache.ratis.statemachine.SnapshotInfo;

/**
 * Ratis's gRPC transport with one fix: a leader sends its snapshot to a follower whose next entry
 * is the first of the leader's log when the entry before it was compacted away.
 *
 * <p>Why: in Ratis 3.2.2 the leader then cannot build the follower's append request (it needs the
 * term of the entry before, which is gone), its log appender for that follower dies with
 * "Previous TermIndex not found", and the follower never catches up until leadership moves. It
 * happens easily: a leader starts a new log segment on every term change and restart, so a node
 * stopped at a segment boundary (the old leader, or every node after a full restart) comes back
 * asking for exactly the first entry of a segment that compaction may have cut before. Ratis fixed
 * it upstream (RATIS-2487, after 3.2.2); drop this class when upgrading past it.
 *
 * <p>Ratis instantiates this type by its class name, from the {@code raft.rpc.type} property.
 */
public final class GuardedGrpcRpc implements RpcType {
  @Override
  public String name() {
    return GuardedGrpcRpc.class.getName();
  }

  @Override
  public RpcFactory newFactory(Parameters parameters) {
    return new Factory(parameters);
  }

  private static final class Factory extends GrpcFactory {
    Factory(Parameters parameters) {
      super(parameters);
    }

    @Override
    public LogAppender newLogAppender(RaftServer.Division server, LeaderState state, FollowerInfo follower) {
      return new Appender(server, state, follower);
    }
  }

  private static final class Appender extends GrpcLogAppender {
    Appender(RaftServer.Division server, LeaderState state, FollowerInfo follower) {
      super(server, state, follower);
    }

    @Override
    public SnapshotInfo shouldInstallSnapshot() {
      SnapshotInfo snapshot = super.shouldInstallSnapshot();
      if (snapshot != null) {
        return snapshot;
      }
      long next = getFollower().getNextIndex();
      long previous = next - 1;
      if (next <= 0 || next >= getRaftLog().getNextIndex() || previous == getFollower().getSnapshotIndex()
          || getRaftLog().getTermIndex(previous) != null) {
        return null;
      }
      // The append request can name the previous entry only if it is exactly the latest snapshot; a
      // newer snapshot covers it.
      SnapshotInfo latest = getServer().getStateMachine().getLatestSnapshot();
      return latest != null && latest.getIndex() > previous ? latest : null;
    }
  }
}
