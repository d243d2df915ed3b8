package io.futureq.security;

import java.util.Locale;

/** What a principal may do; every RPC needs one of these (docs/security.md lists which). */
public enum Permission {
  /** Publish and cancel on a topic. */
  PRODUCE,
  /** Subscribe to a topic: receive, ack and nack its deliveries. */
  CONSUME,
  /** Look into and change a topic: stats, browse, reschedule, purge, delete it or its groups. */
  ADMIN,
  /** Change the cluster's membership (add or remove a Raft peer); not tied to a topic. */
  CLUSTER;

  /** The name used in the access file, JWT claims and refusals: {@code produce}, {@code consume}, ... */
  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The permission named {@code name} as in {@link #configName()}; null if there is none. */
  static Permission named(String name) {
    for (Permission p : values()) {
      if (p.configName().equals(name)) {
        return p;
      }
    }
    return null;
  }
}
