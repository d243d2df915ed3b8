package io.futureq.app;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.futureq.config.ClusterSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Pekko settings that depend on lists in {@code futureq.cluster}: the static endpoints of config
 * discovery cannot be written as substitutions in futureq.conf.
 */
final class ClusterBootstrapConfig {
  private ClusterBootstrapConfig() {}

  static Config overlay(ClusterSettings cluster) {
    if (!cluster.enabled() || !cluster.discoveryMethod().equals("config")) {
      return ConfigFactory.empty();
    }
    List<Map<String, Object>> endpoints = new ArrayList<>();
    for (String point : cluster.contactPoints()) {
      int colon = point.lastIndexOf(':');
      endpoints.add(Map.of("host", point.substring(0, colon), "port", Integer.parseInt(point.substring(colon + 1))));
    }
    return ConfigFactory.parseMap(Map.of(
        "pekko.discovery.config.services." + cluster.serviceName() + ".endpoints", endpoints));
  }
}
