package io.futureq.client;

import java.time.Duration;

/**
 * How a consumer receives.
 *
 * @param maxInFlight deliveries held unacked at once (0: the broker default)
 * @param autoAck ack after the handler returns; a handler that throws gets the message nacked
 * @param nackDelay requeue delay used when an auto-acking handler throws
 * @param reconnectBackoff first wait before resubscribing; doubles up to 5 seconds
 * @param handlerThreads handlers that may run at once; with 1 (the default) they run one at a
 *     time in delivery order, with more the order across threads is not kept
 */
public record ConsumerOptions(int maxInFlight, boolean autoAck, Duration nackDelay, Duration reconnectBackoff,
    int handlerThreads) {

  public ConsumerOptions {
    if (maxInFlight < 0) {
      throw new IllegalArgumentException("maxInFlight must be >= 0, got " + maxInFlight);
    }
    if (handlerThreads < 1) {
      throw new IllegalArgumentException("handlerThreads must be >= 1, got " + handlerThreads);
    }
  }

  public static ConsumerOptions defaults() {
    return new ConsumerOptions(100, true, Duration.ofSeconds(1), Duration.ofMillis(100), 1);
  }

  public ConsumerOptions withMaxInFlight(int n) {
    return new ConsumerOptions(n, autoAck, nackDelay, reconnectBackoff, handlerThreads);
  }

  public ConsumerOptions withManualAck() {
    return new ConsumerOptions(maxInFlight, false, nackDelay, reconnectBackoff, handlerThreads);
  }

  public ConsumerOptions withNackDelay(Duration d) {
    return new ConsumerOptions(maxInFlight, autoAck, d, reconnectBackoff, handlerThreads);
  }

  /** Runs up to {@code n} handlers at once (deliveries beyond credit still wait for acks). */
  public ConsumerOptions withHandlerThreads(int n) {
    return new ConsumerOptions(maxInFlight, autoAck, nackDelay, reconnectBackoff, n);
  }
}
