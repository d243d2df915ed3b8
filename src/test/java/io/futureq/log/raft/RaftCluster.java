package io.futureq.log.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.futureq.config.ClusterTlsSettings;
import io.futureq.config.RaftSettings;
import io.futureq.e2e.TestPorts;
import io.futureq.log.CommandResult;
import io.futureq.log.proto.LogCommand;
import io.futureq.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.ratis.conf.RaftProperties;

/** Three (or more) in-process replicas on free loopback ports, each under its own directory. */
final class RaftCluster implements AutoCloseable {
  /** Generous: a 2-core machine running three servers, RocksDB and GC can be slow. */
  static final Duration WAIT = Duration.ofSeconds(60);
  static final String TOPIC = "orders";
  private static final Duration ELECTION_TIMEOUT = Duration.ofMillis(300);
  private static final ClusterTlsSettings PLAINTEXT = new ClusterTlsSettings(false, null, null, null);

  private final List<RaftNode> nodes;
  private final Path root;
  private final long snapshotThreshold;
  private final long segmentBytes;
  private final Duration requestTimeout;
  private final ClusterTlsSettings tls;

  private RaftCluster(List<RaftNode> nodes, Path root, long snapshotThreshold, long segmentBytes,
      Duration requestTimeout, ClusterTlsSettings tls) {
    this.nodes = new ArrayList<>(nodes);
    this.root = root;
    this.snapshotThreshold = snapshotThreshold;
    this.segmentBytes = segmentBytes;
    this.requestTimeout = requestTimeout;
    this.tls = tls;
  }

  /** Starts {@code size} replicas; a small {@code snapshotThreshold} and {@code segmentBytes} force compaction. */
  static RaftCluster start(Path root, int size, long snapshotThreshold, long segmentBytes) {
    return start(root, size, snapshotThreshold, segmentBytes, Duration.ofSeconds(10));
  }

  /** As above, with appends giving up after {@code requestTimeout}. */
  static RaftCluster start(Path root, int size, long snapshotThreshold, long segmentBytes, Duration requestTimeout) {
    return start(root, size, snapshotThreshold, segmentBytes, requestTimeout, ELECTION_TIMEOUT, true,
        properties -> { }, PLAINTEXT);
  }

  /** Starts {@code size} replicas whose servers and clients speak {@code tls} (mutual TLS, as between members). */
  static RaftCluster start(Path root, int size, ClusterTlsSettings tls) {
    return start(root, size, 1_000_000, 32L << 20, WAIT, ELECTION_TIMEOUT, true, properties -> { }, tls);
  }

  /**
   * Starts {@code size} replicas with the given election timeout and peer watch; {@code tuning} changes Ratis's
   * properties further (a first election sooner than a long election timeout, say).
   */
  static RaftCluster start(Path root, int size, Duration electionTimeout, boolean watchPeerProcesses,
      Consumer<RaftProperties> tuning) {
    return start(root, size, 1_000_000, 32L << 20, WAIT, electionTimeout, watchPeerProcesses,
        tuning, PLAINTEXT);
  }

  private static RaftCluster start(Path root, int size, long snapshotThreshold, long segmentBytes,
      Duration requestTimeout, Duration electionTimeout, boolean watchPeerProcesses, Consumer<RaftProperties> tuning,
      ClusterTlsSettings tls) {
    Map<String, String> peers = new TreeMap<>();
    for (int i = 0; i < size; i++) {
      peers.put("n" + i, "127.0.0.1:" + TestPorts.free());
    }
    List<RaftNode> nodes = new ArrayList<>();
    for (String id : peers.keySet()) {
      RaftNode node = new RaftNode(root.resolve(id), settings(id, peers, root.resolve(id).resolve("raft"),
          snapshotThreshold, segmentBytes, requestTimeout, electionTimeout, watchPeerProcesses, false, tls));
      node.tune(tuning);
      nodes.add(node);
    }
    RaftCluster cluster = new RaftCluster(nodes, root, snapshotThreshold, segmentBytes, requestTimeout, tls);
    try {
      nodes.forEach(RaftNode::start);
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
    return cluster;
  }

  private static RaftSettings settings(String id, Map<String, String> peers, Path raftDir, long snapshotThreshold,
      long segmentBytes, Duration requestTimeout, Duration electionTimeout, boolean watchPeerProcesses, boolean join,
      ClusterTlsSettings tls) {
    return new RaftSettings(id, peers.get(id), peers, raftDir, snapshotThreshold, requestTimeout,
        electionTimeout, segmentBytes, 4L << 20, join, watchPeerProcesses, tls);
  }

  /** Starts a new node {@code id} on a free port, set to join the group that {@code members} belong to. */
  RaftNode startJoining(String id, Map<String, String> members) {
    RaftNode node = joining(id, members);
    node.start();
    return node;
  }

  /** A node that will join (futureq.raft.join on), not started yet: its address is known, nothing listens there. */
  RaftNode joining(String id, Map<String, String> members) {
    Map<String, String> peers = new TreeMap<>(members);
    peers.put(id, "127.0.0.1:" + TestPorts.free());
    RaftNode node = new RaftNode(root.resolve(id), settings(id, peers, root.resolve(id).resolve("raft"),
        snapshotThreshold, segmentBytes, requestTimeout, ELECTION_TIMEOUT, true, true, tls));
    nodes.add(node);
    return node;
  }

  RaftNode node(int i) {
    return nodes.get(i);
  }

  List<RaftNode> running() {
    return nodes.stream().filter(RaftNode::running).toList();
  }

  /** The running node that is leader, once one is elected. */
  RaftNode awaitLeader() {
    return await("a leader among " + running().size() + " running nodes", () -> {
      for (RaftNode node : running()) {
        if (node.status().role() == RaftStatus.Role.LEADER) {
          return node;
        }
      }
      return null;
    });
  }

  /** Waits until every running node applied as far as the furthest one had when called; returns that index. */
  long awaitConverged() {
    long target = running().stream().mapToLong(RaftNode::appliedIndex).max().orElse(0);
    try {
      await("every running node to apply index " + target, () -> {
        for (RaftNode node : running()) {
          if (node.appliedIndex() < target) {
            return null;
          }
        }
        return Boolean.TRUE;
      });
      // The applied index moves before the entry is announced; whenApplied completes after: counts
      // of what the listeners heard are taken after this.
      for (RaftNode node : running()) {
        node.log().whenApplied(target, Duration.ofSeconds(30)).join();
      }
    } catch (AssertionError e) {
      StringBuilder states = new StringBuilder(e.getMessage()).append("; nodes:");
      running().forEach(node -> states.append("\n  ").append(node.status())
          .append("\n    ratis: ").append(node.log().ratisRoleInfo()));
      appenderThreads(states);
      throw new AssertionError(states.toString(), e);
    }
    return target;
  }

  /** Where each leader's log appender threads are: a replica that never catches up has one stuck or gone. */
  private static void appenderThreads(StringBuilder out) {
    out.append("\nlog appender threads:");
    Thread.getAllStackTraces().forEach((thread, stack) -> {
      if (thread.getName().contains("Appender")) {
        out.append("\n  ").append(thread.getName()).append(" ").append(thread.getState());
        for (int i = 0; i < Math.min(stack.length, 8); i++) {
          out.append("\n      at ").append(stack[i]);
        }
      }
    });
  }

  /** Appends through {@code node} and waits for the result. */
  static CommandResult append(RaftNode node, LogCommand command) {
    try {
      return node.log().append(command).toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("append through " + node.id() + " failed: " + command, e);
    }
  }

  /** Asserts that every running node holds the same messages of {@link #TOPIC} and the same pending count. */
  void assertStoresEqual(int expectedMessages) {
    RaftNode reference = running().get(0);
    var messages = reference.messagesOf(TOPIC);
    assertEquals(expectedMessages, messages.size(), "messages on " + reference.id());
    for (RaftNode node : running()) {
      assertEquals(messages, node.messagesOf(TOPIC), "messages on " + node.id() + " vs " + reference.id());
      assertEquals(expectedMessages, node.pending(TOPIC), "pending count on " + node.id());
    }
  }

  /** Polls {@code probe} until it returns non-null, for up to {@link #WAIT}. */
  static <T> T await(String what, Supplier<T> probe) {
    return Await.value(what, WAIT, probe::get);
  }

  @Override
  public void close() {
    RuntimeException failure = null;
    for (RaftNode node : nodes) {
      try {
        node.close();
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
