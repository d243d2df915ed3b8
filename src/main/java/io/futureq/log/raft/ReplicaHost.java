package io.futureq.log.raft;

import io.futureq.config.RaftSettings;
import io.futureq.log.BrokerStateMachine;
import io.futureq.log.EventLog.AppliedListener;
import io.futureq.log.WriteQueueLimit;
import io.futureq.storage.OrderedStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
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
 * This node's Ratis server and the log shards' replicas it runs: one server (one port), a division per shard held,
 * each applying to its own store. Started with the shards a node holds, it takes up another shard's replica while it
 * runs ({@link #takeUp}: a division that waits, without voting, until a member adds it to the group) and gives one
 * up ({@link #giveUp}: the division and its Raft storage removed), so that a shard's replicas can move between nodes.
 * It watches the peers of every shard it holds, once for all ({@link #onPeerProcessGone}).
 */
public final class ReplicaHost implements AutoCloseable {
  /**
   * One shard's replica on this node: its store, the state machine that alone writes it, and who hears what it
   * applied.
   *
   * @param index the log shard
   * @param replicas the nodes its group is created with (preferred leader first), or null for every configured peer
   */
  public record Shard(int index, OrderedStore store, BrokerStateMachine stateMachine, AppliedListener listener,
      List<String> replicas) {}

  /** A shard's parts made before its division exists: Ratis asks for the state machine when it builds that. */
  private record Prepared(Shard shard, RaftServerFactory.LeaderSpread spread, LeaderSubmit submit,
      RatisStateMachine machine) {}

  private final RaftSettings settings;
  private final int count;
  private final RaftProperties properties;
  private final WriteQueueLimit limit;
  private final LongConsumer applyNanos;
  private final Consumer<Throwable> onFatal;
  /** The state machine of each group this server runs: Ratis asks here when it builds a division. */
  private final Map<RaftGroupId, StateMachine> machines = new ConcurrentHashMap<>();
  private final Map<Integer, RaftEventLog> logs = new ConcurrentSkipListMap<>();
  private final Map<Integer, ReplicaView> views = new ConcurrentSkipListMap<>();
  private final Map<Integer, EarlyElection> elections = new ConcurrentSkipListMap<>();
  private RaftServer server;
  private PeerLiveness peers;
  private boolean closed;

  private ReplicaHost(RaftSettings settings, int count, RaftProperties properties, WriteQueueLimit limit,
      LongConsumer applyNanos, Consumer<Throwable> onFatal) {
    this.settings = settings;
    this.count = count;
    this.properties = properties;
    this.limit = limit;
    this.applyNanos = applyNanos;
    this.onFatal = onFatal;
  }

  /**
   * Starts the server with a replica of each of {@code shards} (none on a node that joins a cluster where not every
   * node holds every shard: it takes up replicas when told), adding the groups its storage does not hold yet, and
   * returns once it runs. If any step fails, the server is closed again: a failed start leaves no
   * server running.
   *
   * @param count how many log shards there are
   * @param tuning may change Ratis properties before the server is built
   * @throws IllegalStateException if a store has applied entries but its Raft storage is new
   * @throws UncheckedIOException if the server cannot start (address in use, storage locked or corrupt)
   */
  static ReplicaHost start(RaftSettings settings, int count, List<Shard> shards, WriteQueueLimit limit,
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
    ReplicaHost host = new ReplicaHost(settings, count, properties, limit, applyNanos, onFatal);
    try {
      host.startServer(shards);
      return host;
    } catch (IOException | RuntimeException e) {
      host.closeAfterFailure(e);
      throw new UncheckedIOException("cannot start the Raft server of " + settings.nodeId() + " on "
          + settings.address() + " with storage " + settings.storageDir() + ": " + e.getMessage(),
          e instanceof IOException io ? io : new IOException(e));
    }
  }

  private void startServer(List<Shard> shards) throws IOException {
    List<Prepared> prepared = shards.stream().map(this::prepare).toList();
    server = RaftServerFactory.server(settings, properties, groupId -> {
      StateMachine machine = machines.get(groupId);
      if (machine == null) {
        throw new IllegalStateException("the Raft storage holds group " + groupId + ", which is no log shard of "
            + count + " (futureq.cluster.log-shards) this node holds");
      }
      return machine;
    }, prepared.isEmpty() ? RaftGroup.emptyGroup()
        : RaftServerFactory.initialGroup(settings, prepared.get(0).spread()));
    prepared.forEach(p -> p.submit().attach(server));
    server.start();
    Set<RaftGroupId> held = new HashSet<>();
    server.getGroupIds().forEach(held::add);
    for (Prepared p : prepared) {
      if (!held.contains(p.spread().groupId())) {
        // A new cluster, or a node that is new: its group as configured (a joining node's without peers).
        addGroup(p, RaftServerFactory.initialGroup(settings, p.spread()));
      }
    }
    markGroupsCreated(settings);
    prepared.forEach(this::build);
    // One watch of the peers' processes per node, of every held shard's peers: a dead peer's leaderships are all
    // elected anew. Started once the replicas are built, so its first look finds their peers (a look a second later
    // came after a quick first election's leader had died, and its death went unseen).
    peers = new PeerLiveness(settings.watchPeerProcesses(), () -> views.values().stream().findFirst().orElse(null),
        this::otherPeers, () -> List.copyOf(elections.values()));
  }

  private Prepared prepare(Shard shard) {
    RaftServerFactory.LeaderSpread spread = new RaftServerFactory.LeaderSpread(shard.index(), count, shard.replicas());
    LeaderSubmit submit = new LeaderSubmit(RaftPeerId.valueOf(settings.nodeId()), spread.groupId(),
        settings.requestTimeout());
    RatisStateMachine machine = new RatisStateMachine(shard.index(), shard.store(), shard.stateMachine(),
        shard.listener(), applyNanos, onFatal, submit);
    machines.put(spread.groupId(), machine);
    return new Prepared(shard, spread, submit, machine);
  }

  private void addGroup(Prepared p, RaftGroup group) throws IOException {
    RaftClientReply reply = server.groupManagement(GroupManagementRequest.newAdd(ClientId.randomId(),
        server.getId(), p.shard().index(), group));
    if (!reply.isSuccess()) {
      throw new IOException("cannot add the Raft group of log shard " + p.shard().index() + ": "
          + reply.getException(), reply.getException());
    }
  }

  /** What a shard's log needs around its division, once the division runs. */
  private RaftEventLog build(Prepared p) {
    int k = p.shard().index();
    RaftServerFactory.LeaderSpread spread = p.spread();
    RaftServer started = server;
    ReplicaView replica = new ReplicaView(started, spread.groupId(), settings.nodeId(), p.machine()::appliedIndex);
    Supplier<RaftGroup> group = () -> RaftServerFactory.currentGroup(started, settings, spread);
    ReplicaSubmit ownCommands = new ReplicaSubmit(leader -> {
      RaftGroup current = group.get();
      return RaftServerFactory.client(settings, properties, current,
          leader != null && current.getPeer(leader) != null ? leader : null);
    }, replica, p.submit(), settings.requestTimeout(), limit);
    RaftEventLog log = new RaftEventLog(this, settings, k, started, replica, p.machine(), p.submit(), ownCommands,
        new Membership(started, spread, group, properties, RaftServerFactory.parameters(settings.tls()),
            settings.requestTimeout()));
    views.put(k, replica);
    elections.put(k, new EarlyElection(started, spread.groupId(), properties,
        RaftServerFactory.parameters(settings.tls())));
    logs.put(k, log);
    return log;
  }

  /** Where the storage says that this node's groups were created (its first start ended with them). */
  private static Path createdMark(RaftSettings settings) {
    return settings.storageDir().resolve("futureq-groups-created");
  }

  /**
   * Whether this node's groups were created: from then on it holds the replicas its Raft storage holds and no other
   * (one moved away is not made anew from the configured placement at the next start).
   */
  public static boolean groupsCreated(RaftSettings settings) {
    return Files.exists(createdMark(settings));
  }

  private static void markGroupsCreated(RaftSettings settings) throws IOException {
    if (!groupsCreated(settings)) {
      Files.writeString(createdMark(settings), "the Raft groups this node was created with exist; a group of another "
          + "log shard is taken up while it runs\n");
    }
  }

  /** The log of each shard this node holds a replica of, in shard order. */
  public List<RaftEventLog> logs() {
    return List.copyOf(logs.values());
  }

  /**
   * Takes up a replica of {@code shard}: a division of its group that waits, without voting, until a member adds
   * this node ({@link RaftEventLog#addPeer}), then catches up (a snapshot installed into {@code shard}'s store, which
   * must be new, then the entries since).
   *
   * @throws IllegalStateException if this node holds the shard already, or its Raft storage still holds the group
   * @throws IOException if Ratis refused to add the group
   */
  public synchronized RaftEventLog takeUp(Shard shard) throws IOException {
    int k = shard.index();
    if (closed || logs.containsKey(k)) {
      throw new IllegalStateException(closed ? "the Raft server is closed" : "this node holds log shard " + k);
    }
    if (Files.isDirectory(RaftServerFactory.groupDir(settings, k)) || shard.stateMachine().appliedIndex() > 0) {
      throw new IllegalStateException("log shard " + k + "'s Raft storage " + RaftServerFactory.groupDir(settings, k)
          + " or store is left from a replica held before: a replica taken up starts from nothing");
    }
    Prepared p = prepare(shard);
    p.submit().attach(server);
    try {
      addGroup(p, RaftGroup.valueOf(p.spread().groupId()));
    } catch (IOException | RuntimeException e) {
      machines.remove(p.spread().groupId());
      throw e;
    }
    return build(p);
  }

  /**
   * Gives up this node's replica of {@code shard}: closes its log (what was appended is answered first), then
   * removes its division and deletes its Raft storage. Its store is the caller's to close and delete. The node
   * should no longer be a member of the group (a member that gives up its replica counts as a failed one).
   *
   * @throws IOException if Ratis refused to remove the group
   */
  public synchronized void giveUp(int shard) throws IOException {
    RaftEventLog log = logs.remove(shard);
    if (log == null) {
      throw new IllegalStateException("this node holds no replica of log shard " + shard);
    }
    views.remove(shard);
    log.keepServerOnClose(); // the server runs on for the other shards, or for one taken up later
    try {
      log.close();
    } finally {
      closeQuietly(elections.remove(shard));
    }
    RaftGroupId groupId = RaftServerFactory.groupId(shard);
    RaftClientReply reply = server.groupManagement(GroupManagementRequest.newRemove(ClientId.randomId(),
        server.getId(), shard, groupId, true, false));
    machines.remove(groupId);
    if (!reply.isSuccess()) {
      throw new IOException("cannot remove the Raft group of log shard " + shard + ": " + reply.getException(),
          reply.getException());
    }
  }

  /**
   * Tells {@code listener}, on a thread of the watch, the node id of each peer whose process is seen gone (with
   * {@link RaftSettings#watchPeerProcesses()} on; never otherwise).
   */
  public void onPeerProcessGone(Consumer<String> listener) {
    peers.onGone(listener);
  }

  /**
   * Whether the voters not seen gone by the peer watch, this node included, are a majority of the group of this
   * node's first shard: what a node must be part of before it acts on a peer's death (an isolated node sees every
   * other one gone).
   */
  public boolean majorityAlive() {
    return peers.majorityAlive();
  }

  /** The other peers of every shard this node holds (a node id to its Raft address). */
  private Map<String, String> otherPeers() {
    Map<String, String> out = new TreeMap<>();
    views.values().forEach(view -> out.putAll(view.otherPeers()));
    return out;
  }

  /** Closes every shard's log, last shard first (each answers what was appended), then the watch and the server. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    List<RaftEventLog> open = new ArrayList<>(logs.values());
    try {
      for (int k = open.size() - 1; k >= 0; k--) {
        open.get(k).close();
      }
    } finally {
      closeServer();
    }
  }

  /** Stops the watch, the early elections and the server, with every division. */
  private void closeServer() {
    if (peers != null) {
      peers.close();
    }
    elections.values().forEach(ReplicaHost::closeQuietly);
    try {
      server.close();
    } catch (IOException e) {
      throw new UncheckedIOException("closing the Raft server of " + settings.nodeId() + " failed", e);
    }
  }

  private void closeAfterFailure(Exception cause) {
    if (server != null) {
      try {
        server.close();
      } catch (IOException | RuntimeException e) {
        cause.addSuppressed(e);
      }
    }
  }

  private static void closeQuietly(EarlyElection election) {
    if (election != null) {
      try {
        election.close();
      } catch (IOException e) {
        // its client only asked peers for their last entry: nothing to lose
      }
    }
  }
}
