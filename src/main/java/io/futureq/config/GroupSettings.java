package io.futureq.config;

import java.time.Duration;

/** Delivery rules of consumer groups. */
public record GroupSettings(Duration inFlightTimeout, int maxDeliveries, Duration maxRequeueDelay) {

  static GroupSettings from(SettingsReader r) {
    String p = "futureq.group.";
    return new GroupSettings(
        r.durationIn(p + "in-flight-timeout", Duration.ofMillis(10), Duration.ofDays(1)),
        r.intIn(p + "max-deliveries", 0, 1_000_000),
        r.durationIn(p + "max-requeue-delay", Duration.ZERO, Duration.ofDays(365)));
  }
}
