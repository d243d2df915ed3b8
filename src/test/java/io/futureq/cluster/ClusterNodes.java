package io.futureq.cluster;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.futureq.app.Node;
import io.futureq.app.Readiness;
import io.futureq.config.BrokerSettings;
import io.futureq.e2e.FaultyStore;
import io.futureq.e2e.TestPorts;
import io.futureq.storage.OrderedStore;
import io.futureq.testing.Await;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/** Three clustered brokers in this JVM, each with its own ActorSystem, Raft server and RocksDB. */
final class ClusterNodes implements AutoCloseable {
  final Path dir;
  final int size;
  /** The first this many nodes form the cluster; the others start with futureq.raft.join on. */
  private final int founders;
  final int[] managementPorts;
  final int[] raftPorts;
  /** Each node's console port, serving only with {@code futureq.console.enabled = true} in the overrides. */
  final int[] consolePorts;
  final Node[] nodes;
  /** Settings every node gets on top of the test defaults. */
  private final Map<String, Object> overrides;
  /** In front of each node's Raft port when asked for: what the other nodes dial to reach it. */
  private final TcpProxy[] raftProxies;
  /**
   * Each node's management and Raft ports stay bound here until that node starts: released at once,
   * the kernel could hand one to an earlier node's port-0 bind (gRPC, remoting), and the later node
   * would fail to bind it.
   */
  private final List<ServerSocket> reserved = new ArrayList<>();

  ClusterNodes(Path dir, int size) {
    this(dir, size, Map.of(), false);
  }

  /** @param proxiedRaft put a {@link TcpProxy} in front of each node's Raft port, see {@link #raftProxy} */
  ClusterNodes(Path dir, int size, Map<String, Object> overrides, boolean proxiedRaft) {
    this(dir, size, size, overrides, proxiedRaft);
  }

  /**
   * @param founders how many of the nodes form the cluster (their Raft peers and the contact points required);
   *     the others join it when started, once a member adds them (admin API)
   */
  ClusterNodes(Path dir, int size, int founders, Map<String, Object> overrides, boolean proxiedRaft) {
    this.dir = dir;
    this.size = size;
    this.founders = founders;
    this.overrides = Map.copyOf(overrides);
    this.managementPorts = new int[size];
    this.raftPorts = new int[size];
    this.consolePorts = new int[size];
    this.nodes = new Node[size];
    this.raftProxies = new TcpProxy[size];
    for (int i = 0; i < size; i++) {
      managementPorts[i] = reserve();
      raftPorts[i] = reserve();
      consolePorts[i] = reserve();
      if (proxiedRaft) {
        try {
          raftProxies[i] = new TcpProxy(raftPorts[i]);
        } catch (IOException e) {
          throw new IllegalStateException(e);
        }
      }
    }
  }

  /** The proxy other nodes' Raft traffic to node {@code i} goes through (cut it to isolate its replica). */
  TcpProxy raftProxy(int i) {
    return raftProxies[i];
  }

  private int reserve() {
    ServerSocket socket = TestPorts.reserve();
    reserved.add(socket);
    return socket.getLocalPort();
  }

  /** Lets node {@code i} bind its reserved ports. */
  private void release(int i) {
    for (ServerSocket socket : List.copyOf(reserved)) {
      int port = socket.getLocalPort();
      if (port == managementPorts[i] || port == raftPorts[i] || port == consolePorts[i]) {
        try {
          socket.close();
        } catch (IOException e) {
          throw new IllegalStateException(e);
        }
        reserved.remove(socket);
      }
    }
  }

  Config config(int i) {
    Map<String, Object> values = new HashMap<>();
    values.put("futureq.node-id", "node-" + (i + 1));
    values.put("futureq.storage.data-dir", dir.resolve("node-" + (i + 1)).resolve("data").toString());
    values.put("futureq.raft.storage-dir", dir.resolve("node-" + (i + 1)).resolve("raft").toString());
    values.put("futureq.api.host", "127.0.0.1");
    values.put("futureq.api.port", 0);
    values.put("futureq.metrics.enabled", false);
    values.put("futureq.console.enabled", false);
    values.put("futureq.console.port", consolePorts[i]);
    values.put("futureq.management.port", managementPorts[i]);
    values.put("futureq.cluster.enabled", true);
    values.put("futureq.cluster.remoting.port", 0);
    values.put("futureq.group.in-flight-timeout", "3s");
    values.put("futureq.topic.delete-batch-interval", "20ms");
    List<String> contacts = new ArrayList<>();
    Map<String, String> peers = new HashMap<>();
    // A joining node finds the cluster through the founders; bootstrap waits for every contact point it is given.
    for (int j = 0; j < founders; j++) {
      contacts.add("127.0.0.1:" + managementPorts[j]);
      int dialed = raftProxies[j] == null ? raftPorts[j] : raftProxies[j].port();
      peers.put("node-" + (j + 1), "127.0.0.1:" + dialed);
    }
    values.put("futureq.raft.join", i >= founders);
    values.put("futureq.raft.address", "127.0.0.1:" + raftPorts[i]);
    values.put("futureq.cluster.discovery.contact-points", contacts);
    values.put("futureq.cluster.discovery.required-contact-points", founders);
    values.put("futureq.raft.peers", peers);
    // Pekko's defaults wait for a stable membership before bootstrap; shorten it for tests.
    values.put("pekko.management.cluster.bootstrap.contact-point-discovery.stable-margin", "1s");
    values.put("pekko.management.cluster.bootstrap.contact-point-discovery.interval", "500ms");
    values.put("pekko.cluster.split-brain-resolver.stable-after", "5s");
    values.putAll(overrides);
    return BrokerSettings.load(ConfigFactory.parseMap(values), null, Map.of());
  }

  void start(int i) {
    release(i);
    nodes[i] = Node.start(BrokerSettings.from(config(i)));
  }

  /** Starts node {@code i} on its store wrapped by {@code wrapper} (to inject storage faults). */
  void start(int i, UnaryOperator<OrderedStore> wrapper) {
    release(i);
    nodes[i] = Node.start(BrokerSettings.from(config(i)), wrapper);
  }

  /** Starts the founders (every node unless some join later). */
  void startAll() {
    for (int i = 0; i < founders; i++) {
      start(i);
    }
  }

  /** Node {@code i}'s data directory (log shard 0's store; shard n's in its shard-n). */
  Path dataDir(int i) {
    return dir.resolve("node-" + (i + 1)).resolve("data");
  }

  /** Node {@code i}'s Raft address, as the others dial it. */
  String raftAddress(int i) {
    return "127.0.0.1:" + (raftProxies[i] == null ? raftPorts[i] : raftProxies[i].port());
  }

  /** Starts every node on a {@link FaultyStore} around its store, and returns them by node. */
  FaultyStore[] startAllOnFaultyStores() {
    FaultyStore[] stores = new FaultyStore[size];
    for (int i = 0; i < size; i++) {
      int n = i;
      start(i, store -> stores[n] = new FaultyStore(store));
    }
    return stores;
  }

  /**
   * Waits until every running node is ready, and prints how long that took (kept in the test's report: how close a
   * run under load came to {@code within}).
   */
  void awaitAllReady(Duration within) {
    long start = System.nanoTime();
    Await.until("every running node ready", within, () -> notReady().isEmpty(), () -> "not ready: " + notReady());
    System.out.printf("[cluster] every running node ready after %.1f s (bound %d s)%n",
        (System.nanoTime() - start) / 1e9, within.toSeconds());
  }

  private List<String> notReady() {
    List<String> waiting = new ArrayList<>();
    for (int i = 0; i < nodes.length; i++) {
      if (nodes[i] != null && !Readiness.get(nodes[i].system()).isReady()) {
        waiting.add("node-" + (i + 1));
      }
    }
    return waiting;
  }

  String target(int i) {
    return "127.0.0.1:" + nodes[i].grpcPort();
  }

  void stop(int i) {
    if (nodes[i] != null) {
      nodes[i].close();
      nodes[i] = null;
    }
  }

  @Override
  public void close() {
    for (int i = 0; i < size; i++) {
      stop(i);
      release(i);
      if (raftProxies[i] != null) {
        raftProxies[i].close();
      }
    }
  }
}
