package io.futureq.config;

/** Resource limits that keep one tenant or client from exhausting the broker. */
public record LimitSettings(long maxTopics, long maxPendingPerTopic, int maxConsumersPerGroup,
    int maxStreamsPerConnection, int maxConnections) {

  static LimitSettings from(SettingsReader r) {
    String p = "futureq.limits.";
    return new LimitSettings(
        r.longIn(p + "max-topics", 1, 100_000_000),
        r.longIn(p + "max-pending-per-topic", 1, 10_000_000_000L),
        r.intIn(p + "max-consumers-per-group", 1, 1_000_000),
        r.intIn(p + "max-streams-per-connection", 1, 65535),
        r.intIn(p + "max-connections", 1, 1_000_000));
  }
}
