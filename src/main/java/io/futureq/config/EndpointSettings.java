package io.futureq.config;

/** A host and port to listen on, with a switch for optional endpoints. */
public record EndpointSettings(boolean enabled, String host, int port) {

  static EndpointSettings from(SettingsReader r, String prefix, boolean switchable) {
    return new EndpointSettings(switchable ? r.bool(prefix + "enabled") : true,
        r.nonEmpty(prefix + "host"), r.port(prefix + "port"));
  }
}
