package io.futureq.app;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import io.futureq.config.ClusterSettings;
import io.futureq.log.raft.ReplicaHost;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Down;
import org.apache.pekko.remote.RemoteActorRefProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;

/**
 * Downs a member as soon as the Raft peer watch saw its process die (its Raft port refuses connections), so
 * that the shard coordinator starts its topics on the survivors within seconds: the failure detector and the
 * split-brain resolver's stable-after took 13 s before the resolver downed it (docs/benchmarks.md). A paused
 * process, a dead host or a cut network give no such sign and are still left to the resolver.
 *
 * <p>Safe if the sign were wrong: a node is downed only while this one, with the peers it still sees alive, is
 * a majority of the Raft voters (so an isolated node downs nobody); a downed node's writes need the Raft
 * majority it is not in, and its groups stop delivering within the Raft lease (conf/futureq.conf). Members that
 * are leaving on purpose are left to leave.
 *
 * <p>Members carry their node id as the role {@code futureq-node-<id>}, which is how a Raft peer is found
 * among them.
 */
final class CrashedMemberDowning {
  private static final Logger LOG = LoggerFactory.getLogger(CrashedMemberDowning.class);

  private CrashedMemberDowning() {}

  /** Adds this node's id to the roles {@code config} gives it. */
  static Config roleOverlay(Config config, String nodeId) {
    List<String> roles = new ArrayList<>(config.hasPath("pekko.cluster.roles")
        ? config.getStringList("pekko.cluster.roles") : List.of());
    roles.add(ClusterSettings.nodeRole(nodeId));
    return ConfigFactory.empty().withValue("pekko.cluster.roles", ConfigValueFactory.fromIterable(roles));
  }

  static void start(ActorSystem<?> system, ReplicaHost replicas) {
    replicas.onPeerProcessGone(id -> down(system, replicas, id));
  }

  /**
   * A down member is removed, and its shards and singletons started elsewhere, only once the failure detector
   * also finds it unreachable: 4-7 s after the crash here. Quarantining its incarnation (what remoting does to a
   * node it gave up on) marks it terminated at once, which counts as unreachable. The incarnation is dead, so
   * nothing is lost by never talking to it again; a restarted process joins as a new one.
   */
  private static void quarantine(ActorSystem<?> system, Member member) {
    if (((ExtendedActorSystem) Adapter.toClassic(system)).provider() instanceof RemoteActorRefProvider remote) {
      @SuppressWarnings("unchecked")
      Option<Object> uid = (Option<Object>) (Option<?>) Option.apply(member.uniqueAddress().longUid());
      remote.quarantine(member.address(), uid, "its process is gone (its Raft port refuses connections)");
    }
  }

  private static void down(ActorSystem<?> system, ReplicaHost replicas, String nodeId) {
    Cluster cluster = Cluster.get(system);
    for (Member member : cluster.state().getMembers()) {
      MemberStatus status = member.status();
      boolean running = status == MemberStatus.up() || status == MemberStatus.weaklyUp()
          || status == MemberStatus.joining();
      if (!member.hasRole(ClusterSettings.nodeRole(nodeId)) || !running || member.equals(cluster.selfMember())) {
        continue;
      }
      if (!replicas.majorityAlive()) {
        LOG.info("Node {}'s process is gone, but this node sees no Raft majority alive: leaving it to the "
            + "split-brain resolver", nodeId);
        return;
      }
      LOG.info("Node {}'s process is gone (its Raft port refuses connections): downing member {}", nodeId,
          member.address());
      cluster.manager().tell(new Down(member.address()));
      quarantine(system, member);
    }
  }
}
