package io.futureq.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The clustered event log (Apache Ratis) of one node, from {@code futureq.raft.*}.
 *
 * @param nodeId this node's Raft peer id ({@code futureq.node-id}); a key of {@code peers}
 * @param address host:port this node's Raft server binds (the peers' address of this node by default)
 * @param peers the initial voting members, node id to host:port, including this node; once the
 *     group exists, membership lives in the Raft log and changes only through the admin API
 * @param storageDir the Raft log, metadata and snapshots (RocksDB checkpoints) of this node
 * @param snapshotThreshold applied entries after which a snapshot is taken and the log compacted
 * @param requestTimeout longest an append may wait for a leader to commit it
 * @param electionTimeout a follower that hears no leader for between this and twice this starts
 *     an election; failover takes about this long plus one round trip
 * @param logSegmentBytes size of one Raft log segment file; compaction deletes whole segments
 * @param maxEntryBytes largest Raft entry (one group commit of the write leader); one command larger than this fails
 * @param join whether this node joins a running group: it then waits, without voting, until a
 *     member adds it with the admin API; {@code peers} need only name some current members
 * @param watchPeerProcesses whether this node holds a connection to each peer's Raft port to learn at once
 *     that a peer's process died (its port refuses connections): the followers of a dead leader then elect
 *     a new one without waiting out the election timeout, and the cluster downs the dead member
 * @param tls TLS between the Raft servers and clients ({@code futureq.cluster.tls})
 */
public record RaftSettings(
    String nodeId,
    String address,
    Map<String, String> peers,
    Path storageDir,
    long snapshotThreshold,
    Duration requestTimeout,
    Duration electionTimeout,
    long logSegmentBytes,
    long maxEntryBytes,
    boolean join,
    boolean watchPeerProcesses,
    ClusterTlsSettings tls) {

  public RaftSettings {
    peers = Collections.unmodifiableMap(new TreeMap<>(peers));
  }

  /** The host part of {@link #address}. */
  public String host() {
    return address.substring(0, address.lastIndexOf(':'));
  }

  /** The port part of {@link #address}. */
  public int port() {
    return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
  }

  /**
   * Reads and validates {@code futureq.raft.*} and {@code futureq.node-id}.
   *
   * @throws SettingsException listing every bad key and why
   */
  public static RaftSettings from(Config config) {
    SettingsReader r = new SettingsReader(config);
    RaftSettings settings = from(r, config, ClusterTlsSettings.from(r));
    if (!r.problems().isEmpty()) {
      throw new SettingsException(r.problems());
    }
    return settings;
  }

  /** Reads the settings, adding each problem to {@code r} (for a caller that reports all areas at once). */
  static RaftSettings from(SettingsReader r, Config config, ClusterTlsSettings tls) {
    String p = "futureq.raft.";
    String nodeId = r.nonEmpty("futureq.node-id");
    Map<String, String> peers = peers(config, p + "peers", r.problems());
    String address = r.string(p + "address");
    if (address.isBlank()) {
      address = peers.getOrDefault(nodeId, "");
    }
    boolean join = r.bool(p + "join");
    if (!join && !peers.isEmpty() && !nodeId.isEmpty() && !peers.containsKey(nodeId)) {
      r.problems().add(p + "peers: must include this node (futureq.node-id = \"" + nodeId + "\") unless "
          + p + "join is on");
    }
    checkAddress(p + "address", address, r.problems());
    return new RaftSettings(nodeId, address, peers,
        Path.of(r.nonEmpty(p + "storage-dir")),
        r.longIn(p + "snapshot-threshold", 1, 1_000_000_000L),
        r.durationIn(p + "request-timeout", Duration.ofMillis(100), Duration.ofHours(1)),
        r.durationIn(p + "election-timeout", Duration.ofMillis(50), Duration.ofMinutes(1)),
        r.bytesIn(p + "log-segment-size", 4L << 10, 1L << 30),
        r.bytesIn(p + "max-entry-size", 1L << 20, 1L << 30),
        join, r.bool(p + "watch-peer-processes"), tls);
  }

  private static Map<String, String> peers(Config config, String key, List<String> problems) {
    Map<String, String> peers = new TreeMap<>();
    ConfigObject object;
    try {
      object = config.getObject(key);
    } catch (ConfigException e) {
      problems.add(key + ": " + (e instanceof ConfigException.Missing ? "is missing" : e.getMessage()));
      return peers;
    }
    for (Map.Entry<String, ConfigValue> entry : object.entrySet()) {
      String name = key + "." + entry.getKey();
      if (entry.getValue().valueType() != ConfigValueType.STRING) {
        problems.add(name + ": must be a \"host:port\" string");
        continue;
      }
      String address = (String) entry.getValue().unwrapped();
      checkAddress(name, address, problems);
      peers.put(entry.getKey(), address);
    }
    if (object.isEmpty()) {
      problems.add(key + ": must name at least one node");
    }
    return peers;
  }

  private static void checkAddress(String key, String address, List<String> problems) {
    int colon = address.lastIndexOf(':');
    String why = null;
    if (colon <= 0) {
      why = "is not host:port";
    } else {
      try {
        int port = Integer.parseInt(address.substring(colon + 1));
        if (port < 1 || port > 65535) {
          why = "port " + port + " is outside [1, 65535]";
        }
      } catch (NumberFormatException e) {
        why = "the port is not a number";
      }
    }
    if (why != null) {
      problems.add(key + ": \"" + address + "\" " + why);
    }
  }
}
