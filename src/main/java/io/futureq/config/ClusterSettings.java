package io.futureq.config;

/** Node identity and Pekko remoting. Standalone is a single-node cluster that joins itself. */
public record ClusterSettings(boolean enabled, String nodeId, String remotingHost, int remotingPort) {

  static ClusterSettings from(SettingsReader r) {
    String p = "futureq.cluster.";
    return new ClusterSettings(r.bool(p + "enabled"), r.nonEmpty("futureq.node-id"),
        r.nonEmpty(p + "remoting.host"), r.port(p + "remoting.port"));
  }
}
