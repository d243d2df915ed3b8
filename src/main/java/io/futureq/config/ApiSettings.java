package io.futureq.config;

import java.time.Duration;

/** The gRPC edge: where it listens and what input it accepts. */
public record ApiSettings(
    String host,
    int port,
    AdvertisedAddress advertised,
    Duration requestTimeout,
    Duration shutdownGrace,
    Duration idleTimeout,
    Duration keepaliveInterval,
    int publishParallelism,
    long maxPayloadBytes,
    int maxBatchMessages,
    long maxBatchBytes,
    int maxKeyBytes,
    int maxHeaders,
    long maxHeaderBytes,
    Duration maxDelay,
    Duration maxTtl,
    AckLevel minAckLevel,
    int defaultMaxInFlight,
    int maxInFlight,
    long defaultMaxInFlightBytes,
    long maxInFlightBytes) {

  /**
   * The defaults for a subscriber that sends 0 are capped at the limits: a broker whose operator lowered a limit
   * below the default (set before the default was raised to 1000 deliveries) keeps starting, and serves the limit.
   */
  static ApiSettings from(SettingsReader r) {
    String p = "futureq.api.";
    String host = r.nonEmpty(p + "host");
    int maxInFlight = r.intIn(p + "max-in-flight", 1, 1_000_000);
    long maxInFlightBytes = r.bytesIn(p + "max-in-flight-bytes", 1, 64L << 30);
    return new ApiSettings(
        host,
        r.port(p + "port"),
        AdvertisedAddress.from(r, host, r.string("futureq.cluster.remoting.host")),
        r.durationIn(p + "request-timeout", Duration.ofMillis(100), Duration.ofHours(1)),
        r.durationIn(p + "shutdown-grace", Duration.ZERO, Duration.ofMinutes(1)),
        r.durationIn(p + "idle-timeout", Duration.ofSeconds(1), Duration.ofDays(1)),
        r.durationIn(p + "keepalive-interval", Duration.ofMillis(100), Duration.ofDays(1)),
        r.intIn(p + "publish-parallelism", 1, 4096),
        r.bytesIn(p + "max-payload-size", 1, 64L << 20),
        r.intIn(p + "max-batch-messages", 1, 1_000_000),
        r.bytesIn(p + "max-batch-size", 1, 256L << 20),
        r.intIn(p + "max-key-length", 1, 65_536),
        r.intIn(p + "max-headers", 0, 10_000),
        r.bytesIn(p + "max-headers-size", 1, 64L << 20),
        r.durationIn(p + "max-delay", Duration.ZERO, Duration.ofDays(365L * 100)),
        r.durationIn(p + "max-ttl", Duration.ofMillis(1), Duration.ofDays(365L * 100)),
        r.enumOf(p + "min-ack-level", AckLevel.class, AckLevel.LEADER),
        Math.min(r.intIn(p + "default-max-in-flight", 1, 1_000_000), maxInFlight),
        maxInFlight,
        Math.min(r.bytesIn(p + "default-max-in-flight-bytes", 1, 64L << 30), maxInFlightBytes),
        maxInFlightBytes);
  }
}
