package io.futureq.client;

import io.futureq.api.grpc.AckLevel;
import java.time.Duration;
import java.util.Objects;

/**
 * How a producer batches and bounds its work.
 *
 * @param batchMessages a batch is sent once it holds this many messages
 * @param batchBytes ... or this many bytes
 * @param linger ... or when its first message has waited this long
 * @param maxOutstandingMessages sends beyond this many unacknowledged messages block the caller
 * @param blockTimeout how long a blocked send waits before failing with RESOURCE_EXHAUSTED
 * @param ackLevel when the broker answers
 * @param reconnectBackoff first wait before reconnecting; doubles up to 5 seconds
 * @param deliveryTimeout longest a send may wait for the broker's acknowledgement, resends included,
 *     counted from {@code send()}; then its future fails with DEADLINE_EXCEEDED (default 60 s)
 * @param closeTimeout longest {@code close()} waits for outstanding acknowledgements (default 5 s)
 */
public record ProducerOptions(int batchMessages, int batchBytes, Duration linger, int maxOutstandingMessages,
    Duration blockTimeout, AckLevel ackLevel, Duration reconnectBackoff, Duration deliveryTimeout,
    Duration closeTimeout) {

  public ProducerOptions {
    if (batchMessages < 1 || batchBytes < 1 || maxOutstandingMessages < 1) {
      throw new IllegalArgumentException("batchMessages, batchBytes and maxOutstandingMessages must be >= 1, got "
          + batchMessages + ", " + batchBytes + ", " + maxOutstandingMessages);
    }
    requireNotNegative("linger", linger);
    requireNotNegative("blockTimeout", blockTimeout);
    requireNotNegative("closeTimeout", closeTimeout);
    Objects.requireNonNull(ackLevel, "ackLevel");
    if (requireNotNegative("reconnectBackoff", reconnectBackoff).isZero()) {
      throw new IllegalArgumentException("reconnectBackoff must be positive");
    }
    if (requireNotNegative("deliveryTimeout", deliveryTimeout).isZero()) {
      throw new IllegalArgumentException("deliveryTimeout must be positive");
    }
  }

  public static ProducerOptions defaults() {
    return new ProducerOptions(100, 1 << 20, Duration.ofMillis(5), 100_000, Duration.ofSeconds(30),
        AckLevel.ACK_LEVEL_QUORUM, Duration.ofMillis(100), Duration.ofSeconds(60), Duration.ofSeconds(5));
  }

  public ProducerOptions withBatchMessages(int n) {
    return new ProducerOptions(n, batchBytes, linger, maxOutstandingMessages, blockTimeout, ackLevel, reconnectBackoff,
        deliveryTimeout, closeTimeout);
  }

  public ProducerOptions withLinger(Duration d) {
    return new ProducerOptions(batchMessages, batchBytes, d, maxOutstandingMessages, blockTimeout, ackLevel,
        reconnectBackoff, deliveryTimeout, closeTimeout);
  }

  public ProducerOptions withMaxOutstandingMessages(int n) {
    return new ProducerOptions(batchMessages, batchBytes, linger, n, blockTimeout, ackLevel, reconnectBackoff,
        deliveryTimeout, closeTimeout);
  }

  public ProducerOptions withBlockTimeout(Duration d) {
    return new ProducerOptions(batchMessages, batchBytes, linger, maxOutstandingMessages, d, ackLevel,
        reconnectBackoff, deliveryTimeout, closeTimeout);
  }

  public ProducerOptions withAckLevel(AckLevel level) {
    return new ProducerOptions(batchMessages, batchBytes, linger, maxOutstandingMessages, blockTimeout, level,
        reconnectBackoff, deliveryTimeout, closeTimeout);
  }

  public ProducerOptions withReconnectBackoff(Duration d) {
    return new ProducerOptions(batchMessages, batchBytes, linger, maxOutstandingMessages, blockTimeout, ackLevel, d,
        deliveryTimeout, closeTimeout);
  }

  /** Fails a send that is not acknowledged within {@code d} of {@code send()}, however often it was resent. */
  public ProducerOptions withDeliveryTimeout(Duration d) {
    return new ProducerOptions(batchMessages, batchBytes, linger, maxOutstandingMessages, blockTimeout, ackLevel,
        reconnectBackoff, d, closeTimeout);
  }

  /** Bounds how long {@code close()} waits for outstanding acknowledgements. */
  public ProducerOptions withCloseTimeout(Duration d) {
    return new ProducerOptions(batchMessages, batchBytes, linger, maxOutstandingMessages, blockTimeout, ackLevel,
        reconnectBackoff, deliveryTimeout, d);
  }

  private static Duration requireNotNegative(String name, Duration d) {
    Objects.requireNonNull(d, name);
    if (d.isNegative()) {
      throw new IllegalArgumentException(name + " must not be negative, got " + d);
    }
    return d;
  }
}
