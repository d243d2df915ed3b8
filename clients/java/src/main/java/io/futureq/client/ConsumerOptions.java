package io.futureq.client;

import java.time.Duration;

/**
 * How a consumer receives.
 *
 * <p>The credit ({@code maxInFlight}, {@code maxInFlightBytes}) is what the broker lets this consumer hold unacked:
 * it sends nothing more until acks (or nacks) give some back. By default both are the broker's defaults, 1,000
 * deliveries and 16 MiB of payload on a broker of this version: a window wide enough that a consumer is never
 * idle while its acks travel to the broker and the next deliveries come back, and bounded in bytes so that large
 * messages do not fill memory. Acks go out in frames of ranges: a frame once a quarter of the credit is acked,
 * when a handler has gone through the deliveries of a frame, and at most 1 ms after any other ack.
 *
 * @param maxInFlight deliveries held unacked at once (0: the broker default)
 * @param autoAck ack after the handler returns; a handler that throws gets the message nacked
 * @param nackDelay requeue delay used when an auto-acking handler throws
 * @param reconnectBackoff first wait before resubscribing; doubles up to 5 seconds, each wait jittered over its
 *     upper half so that the consumers of a restarted broker do not all come back at once
 * @param handlerThreads handlers that may run at once; with 1 (the default) they run one at a
 *     time in delivery order, with more the order across threads is not kept
 * @param maxInFlightBytes payload bytes held unacked at once (0: the broker default); one delivery larger than
 *     this still comes, alone
 */
public record ConsumerOptions(int maxInFlight, boolean autoAck, Duration nackDelay, Duration reconnectBackoff,
    int handlerThreads, long maxInFlightBytes) {

  public ConsumerOptions {
    if (maxInFlight < 0) {
      throw new IllegalArgumentException("maxInFlight must be >= 0, got " + maxInFlight);
    }
    if (handlerThreads < 1) {
      throw new IllegalArgumentException("handlerThreads must be >= 1, got " + handlerThreads);
    }
    if (maxInFlightBytes < 0) {
      throw new IllegalArgumentException("maxInFlightBytes must be >= 0, got " + maxInFlightBytes);
    }
  }

  /** The options of earlier versions, with the broker's default for the bytes held unacked. */
  public ConsumerOptions(int maxInFlight, boolean autoAck, Duration nackDelay, Duration reconnectBackoff,
      int handlerThreads) {
    this(maxInFlight, autoAck, nackDelay, reconnectBackoff, handlerThreads, 0);
  }

  /** The broker's default credit, auto-ack, a nack delay of 1 s, one handler thread. */
  public static ConsumerOptions defaults() {
    return new ConsumerOptions(0, true, Duration.ofSeconds(1), Duration.ofMillis(100), 1, 0);
  }

  /** Holds at most {@code n} deliveries unacked (0: the broker default; at most the broker's limit, 10,000). */
  public ConsumerOptions withMaxInFlight(int n) {
    return new ConsumerOptions(n, autoAck, nackDelay, reconnectBackoff, handlerThreads, maxInFlightBytes);
  }

  /**
   * Holds deliveries of at most {@code bytes} payload bytes unacked (0: the broker default; at most the broker's
   * limit, 1 GiB by default). Lower it when messages are large and handlers slow.
   */
  public ConsumerOptions withMaxInFlightBytes(long bytes) {
    return new ConsumerOptions(maxInFlight, autoAck, nackDelay, reconnectBackoff, handlerThreads, bytes);
  }

  public ConsumerOptions withManualAck() {
    return new ConsumerOptions(maxInFlight, false, nackDelay, reconnectBackoff, handlerThreads, maxInFlightBytes);
  }

  public ConsumerOptions withNackDelay(Duration d) {
    return new ConsumerOptions(maxInFlight, autoAck, d, reconnectBackoff, handlerThreads, maxInFlightBytes);
  }

  /** Runs up to {@code n} handlers at once (deliveries beyond credit still wait for acks). */
  public ConsumerOptions withHandlerThreads(int n) {
    return new ConsumerOptions(maxInFlight, autoAck, nackDelay, reconnectBackoff, n, maxInFlightBytes);
  }
}
