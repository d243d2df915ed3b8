package io.futureq.app;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.futureq.config.ClusterTlsSettings;

/**
 * Switches Artery to {@code tls-tcp} when cluster TLS is on. The engine and its files are set in futureq.conf by
 * substitution; only the transport depends on a flag, which a substitution cannot express.
 */
final class RemotingTls {
  private RemotingTls() {}

  static Config overlay(ClusterTlsSettings tls) {
    return tls.enabled() ? ConfigFactory.parseString("pekko.remote.artery.transport = tls-tcp") : ConfigFactory.empty();
  }
}
