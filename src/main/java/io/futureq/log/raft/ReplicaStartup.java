package io.futureq.log.raft;

import io.futureq.config.RaftSettings;
import io.futureq.log.BrokerStateMachine;
import io.futureq.log.EventLog.AppliedListener;
import io.futureq.log.WriteQueueLimit;
import io.futureq.storage.OrderedStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.GroupManagementRequest;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.statemachine.StateMachine;

/**
 * How {@link RaftEventLog#start} brings this node's replicas up: one Ratis server with a division per log shard (one
 * port, one server, several groups). It checks that each shard's store and Raft storage belong together, starts the
 * server over a {@link RatisStateMachine} per shard, adds the shards' groups the server's storage does not hold yet,
 * and builds what each shard's log needs around its division (the in-process leader submissions, the replica's own
 * submissions, membership, the early election). If any step fails, the server is closed again, so a failed start
 * leaves no server running.
 */
final class ReplicaStartup {
  private ReplicaStartup() {}

  /**
   * One shard's replica on this node: its store, the state machine writing it, and who hears what it applied.
   *
   * @param index the log shard
   * @param replicas the nodes its group is created with (preferred leader first), or null for every configured peer
   */
  record Shard(int index, OrderedStore store, BrokerStateMachine stateMachine, AppliedListener listener,
      List<String> replicas) {}

  /**
   * See {@link RaftEventLog#start}; {@code tuning} may change Ratis properties before the server is built.
   *
   * @param count how many log shards there are
   * @param shards the shards this node holds a replica of, in order
   * @return each of those shards' log, in the same order; the first owns the server and the peer watch, and closes
   *     the server last
   */
  static List<RaftEventLog> start(RaftSettings settings, int count, List<Shard> shards, WriteQueueLimit limit,
      LongConsumer applyNanos, Consumer<Throwable> onFatal, Consumer<RaftProperties> tuning) {
    for (Shard shard : shards) {
      int k = shard.index();
      long applied = shard.stateMachine().appliedIndex();
      if (applied > 0 && !Files.isDirectory(RaftServerFactory.groupDir(settings, k))) {
        throw new IllegalStateException("the store of log shard " + k + " has applied log index " + applied
            + " but the Raft storage " + RaftServerFactory.groupDir(settings, k) + " is new; a store written by the "
            + "standalone log or kept after wiping the Raft storage would skip entries: wipe both or neither");
      }
    }
    RaftProperties properties = RaftServerFactory.properties(settings);
    tuning.accept(properties);
    RaftPeerId self = RaftPeerId.valueOf(settings.nodeId());
    List<RaftServerFactory.LeaderSpread> spreads = new ArrayList<>();
    List<LeaderSubmit> submissions = new ArrayList<>();
    List<RatisStateMachine> machines = new ArrayList<>();
    Map<RaftGroupId, StateMachine> byGroup = new HashMap<>();
    for (Shard shard : shards) {
      int k = shard.index();
      RaftServerFactory.LeaderSpread spread = new RaftServerFactory.LeaderSpread(k, count, shard.replicas());
      LeaderSubmit submit = new LeaderSubmit(self, spread.groupId(), settings.requestTimeout());
      RatisStateMachine machine = new RatisStateMachine(k, shard.store(), shard.stateMachine(), shard.listener(),
          applyNanos, onFatal, submit);
      spreads.add(spread);
      submissions.add(submit);
      machines.add(machine);
      byGroup.put(spread.groupId(), machine);
    }
    RaftServer server = null;
    try {
      server = RaftServerFactory.server(settings, properties, groupId -> {
        StateMachine machine = byGroup.get(groupId);
        if (machine == null) {
          throw new IllegalStateException("the Raft storage holds group " + groupId + ", which is no log shard of "
              + count + " (futureq.cluster.log-shards) this node holds");
        }
        return machine;
      }, RaftServerFactory.initialGroup(settings, spreads.get(0)));
      for (LeaderSubmit submit : submissions) {
        submit.attach(server);
      }
      server.start();
      addMissingGroups(server, settings, spreads);
      RaftServer started = server;
      List<ReplicaView> views = new ArrayList<>();
      List<EarlyElection> elections = new ArrayList<>();
      for (int k = 0; k < shards.size(); k++) {
        views.add(new ReplicaView(started, spreads.get(k).groupId(), settings.nodeId(), machines.get(k)::appliedIndex));
        elections.add(new EarlyElection(started, spreads.get(k).groupId(), properties,
            RaftServerFactory.parameters(settings.tls())));
      }
      List<RaftEventLog> logs = new ArrayList<>();
      for (int k = 0; k < shards.size(); k++) {
        RaftServerFactory.LeaderSpread spread = spreads.get(k);
        Supplier<RaftGroup> group = () -> RaftServerFactory.currentGroup(started, settings, spread);
        ReplicaView replica = views.get(k);
        ReplicaSubmit ownCommands = new ReplicaSubmit(leader -> {
          RaftGroup current = group.get();
          return RaftServerFactory.client(settings, properties, current,
              leader != null && current.getPeer(leader) != null ? leader : null);
        }, replica, submissions.get(k), settings.requestTimeout(), limit);
        // One watch of the peers' processes per node, on its first shard, of every held shard's peers: a dead peer's
        // leaderships are all elected anew.
        PeerLiveness peers = k == 0 ? new PeerLiveness(settings.watchPeerProcesses(), replica, () -> otherPeers(views),
            elections) : new PeerLiveness(false, replica, replica::otherPeers, List.of());
        logs.add(new RaftEventLog(settings, shards.get(k).index(), k == 0, server, replica, machines.get(k),
            submissions.get(k), ownCommands,
            new Membership(server, spread, group, properties, RaftServerFactory.parameters(settings.tls()),
                settings.requestTimeout()), peers));
      }
      return logs;
    } catch (IOException | RuntimeException e) {
      closeAfterFailure(server, e);
      throw new UncheckedIOException("cannot start the Raft server of " + settings.nodeId() + " on "
          + settings.address() + " with storage " + settings.storageDir() + ": " + e.getMessage(),
          e instanceof IOException io ? io : new IOException(e));
    }
  }

  /**
   * The server starts with shard 0's group and every group its storage holds; a shard whose group it does not hold
   * (a new cluster, or a node that is new) is added here, as configured (a joining node's without peers, until a
   * member adds it).
   */
  private static void addMissingGroups(RaftServer server, RaftSettings settings,
      List<RaftServerFactory.LeaderSpread> spreads) throws IOException {
    Set<RaftGroupId> held = new HashSet<>();
    server.getGroupIds().forEach(held::add);
    for (RaftServerFactory.LeaderSpread spread : spreads) {
      if (held.contains(spread.groupId())) {
        continue;
      }
      RaftClientReply reply = server.groupManagement(GroupManagementRequest.newAdd(ClientId.randomId(),
          server.getId(), spread.shard(), RaftServerFactory.initialGroup(settings, spread)));
      if (!reply.isSuccess()) {
        throw new IOException("cannot add the Raft group of log shard " + spread.shard() + ": "
            + reply.getException(), reply.getException());
      }
    }
  }

  /** The other peers of every shard this node holds (a node id to its Raft address). */
  private static Map<String, String> otherPeers(List<ReplicaView> views) {
    Map<String, String> peers = new TreeMap<>();
    views.forEach(view -> peers.putAll(view.otherPeers()));
    return peers;
  }

  private static void closeAfterFailure(RaftServer server, Exception cause) {
    if (server != null) {
      try {
        server.close();
      } catch (IOException | RuntimeException e) {
        cause.addSuppressed(e);
      }
    }
  }
}
