package io.futureq.config;

import java.util.List;

/**
 * Node identity, Pekko remoting and, when clustered, how members find each other. Standalone is a
 * single-node cluster that joins itself.
 *
 * @param discoveryMethod {@code config} (the static {@code contactPoints}), {@code pekko-dns} or
 *     {@code kubernetes-api}
 * @param contactPoints Pekko Management {@code host:port} of every member, for {@code config}
 * @param tls TLS on remoting and Raft
 */
public record ClusterSettings(boolean enabled, String nodeId, String remotingHost, int remotingPort,
    String discoveryMethod, String serviceName, List<String> contactPoints, int requiredContactPoints,
    ClusterTlsSettings tls) {

  static ClusterSettings from(SettingsReader r) {
    String p = "futureq.cluster.";
    ClusterSettings s = new ClusterSettings(r.bool(p + "enabled"), r.nonEmpty("futureq.node-id"),
        r.nonEmpty(p + "remoting.host"), r.port(p + "remoting.port"), r.nonEmpty(p + "discovery.method"),
        r.nonEmpty(p + "discovery.service-name"), r.stringList(p + "discovery.contact-points"),
        r.intIn(p + "discovery.required-contact-points", 1, 1000), ClusterTlsSettings.from(r));
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
}
