package io.futureq.config;

import java.util.ArrayList;
import java.util.List;

/**
 * Node identity, Pekko remoting and, when clustered, how members find each other. Standalone is a
 * single-node cluster that joins itself.
 *
 * @param discoveryMethod {@code config} (the static {@code contactPoints}), {@code pekko-dns} or
 *     {@code kubernetes-api}
 * @param contactPoints Pekko Management {@code host:port} of every member, for {@code config}
 * @param tls TLS on remoting and Raft
 * @param allowInsecure listen for remoting and Raft beyond loopback without cluster TLS
 * @param logShards how many shards the event log has (each its own Raft group clustered); fixed when the data
 *     directory is created
 * @param replicationFactor how many nodes hold a replica of each log shard when the cluster has more nodes (see
 *     {@code ShardPlacement} in the log package)
 */
public record ClusterSettings(boolean enabled, String nodeId, String remotingHost, int remotingPort,
    String discoveryMethod, String serviceName, List<String> contactPoints, int requiredContactPoints,
    ClusterTlsSettings tls, boolean allowInsecure, int logShards, int replicationFactor) {
  /** Most log shards: each is a Raft group with its own threads and a store with its own RocksDB instance. */
  public static final int MAX_LOG_SHARDS = 16;

  /** The cluster role a member carries with its node id: how a Raft peer or a node named in a call is found. */
  public static String nodeRole(String nodeId) {
    return "futureq-node-" + nodeId;
  }

  static ClusterSettings from(SettingsReader r) {
    String p = "futureq.cluster.";
    ClusterSettings s = new ClusterSettings(r.bool(p + "enabled"), r.nonEmpty("futureq.node-id"),
        r.nonEmpty(p + "remoting.host"), r.port(p + "remoting.port"), r.nonEmpty(p + "discovery.method"),
        r.nonEmpty(p + "discovery.service-name"), r.stringList(p + "discovery.contact-points"),
        r.intIn(p + "discovery.required-contact-points", 1, 1000), ClusterTlsSettings.from(r),
        r.bool(p + "allow-insecure"), r.intIn(p + "log-shards", 1, MAX_LOG_SHARDS),
        r.intIn(p + "replication-factor", 1, 99));
    if (!List.of("config", "pekko-dns", "kubernetes-api").contains(s.discoveryMethod())) {
      r.problems().add(p + "discovery.method: must be config, pekko-dns or kubernetes-api, got '"
          + s.discoveryMethod() + "'");
    }
    for (String point : s.contactPoints()) {
      if (!point.matches("[^:\\s]+:\\d{1,5}")) {
        r.problems().add(p + "discovery.contact-points: '" + point + "' is not HOST:PORT");
      }
    }
    if (s.enabled() && s.discoveryMethod().equals("config") && s.contactPoints().isEmpty()) {
      r.problems().add(p + "discovery.contact-points: must list the members' management HOST:PORT when "
          + "discovery.method = config");
    }
    return s;
  }

  /**
   * Which of remoting and Raft listen where other machines reach them.
   *
   * @param raft this node's Raft settings, or null when standalone (remoting counts all the same: a standalone
   *     node is a cluster of one that another process could join)
   * @return each such setting as {@code setting: "value"}
   */
  public List<String> exposed(RaftSettings raft) {
    List<String> wide = new ArrayList<>();
    if (!SecuritySettings.isLoopback(remotingHost)) {
      wide.add("futureq.cluster.remoting.host: \"" + remotingHost + "\"");
    }
    // An address that is no host:port is reported by RaftSettings already.
    if (raft != null && raft.address().lastIndexOf(':') > 0 && !SecuritySettings.isLoopback(raft.host())) {
      wide.add("futureq.raft.address: \"" + raft.address() + "\"");
    }
    return wide;
  }

  /**
   * Refuses remoting or Raft beyond loopback without cluster TLS, unless allowed: whoever reaches the Raft port
   * could append to the log (publish, cancel, delete, change membership) and whoever reaches remoting could join
   * as a member and host topics, past every token and permission of the API.
   */
  void check(RaftSettings raft, List<String> problems) {
    List<String> wide = exposed(raft);
    if (tls.enabled() || allowInsecure || wide.isEmpty()) {
      return;
    }
    problems.add(String.join(" and ", wide) + " can be reached from other machines, and futureq.cluster.tls.enabled "
        + "= false: turn cluster TLS on (docs/security.md), bind loopback addresses (127.0.0.1) for a cluster on one "
        + "machine, or set futureq.cluster.allow-insecure = true to let anyone who reaches them write to the Raft log "
        + "(publish, cancel, delete, change membership) and join the cluster");
  }
}
