package io.futureq.client;

import java.time.Duration;

/**
 * How a consumer receives.
 *
 * @param maxInFlight deliveries held unacked at once (0: the broker default)
 * @param autoAck ack after the handler returns; a handler that throws gets the message nacked
 * @param nackDelay requeue delay used when an auto-acking handler throws
 * @param reconnectBackoff first wait before resubscribing; doubles up to 5 seconds
 */
public record ConsumerOptions(int maxInFlight, boolean autoAck, Duration nackDelay, Duration reconnectBackoff) {

  public static ConsumerOptions defaults() {
    return new ConsumerOptions(100, true, Duration.ofSeconds(1), Duration.ofMillis(100));
  }

  public ConsumerOptions withMaxInFlight(int n) {
    return new ConsumerOptions(n, autoAck, nackDelay, reconnectBackoff);
  }

  public ConsumerOptions withManualAck() {
    return new ConsumerOptions(maxInFlight, false, nackDelay, reconnectBackoff);
  }
}
