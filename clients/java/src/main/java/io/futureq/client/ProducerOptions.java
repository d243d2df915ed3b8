package io.futureq.client;

import io.futureq.api.grpc.AckLevel;
import java.time.Duration;

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
 */
public record ProducerOptions(int batchMessages, int batchBytes, Duration linger, int maxOutstandingMessages,
    Duration blockTimeout, AckLevel ackLevel, Duration reconnectBackoff) {

  public static ProducerOptions defaults() {
    return new ProducerOptions(100, 1 << 20, Duration.ofMillis(5), 100_000, Duration.ofSeconds(30),
        AckLevel.ACK_LEVEL_QUORUM, Duration.ofMillis(100));
  }

  public ProducerOptions withBatchMessages(int n) {
    return new ProducerOptions(n, batchBytes, linger, maxOutstandingMessages, blockTimeout, ackLevel, reconnectBackoff);
  }

  public ProducerOptions withLinger(Duration d) {
    return new ProducerOptions(batchMessages, batchBytes, d, maxOutstandingMessages, blockTimeout, ackLevel,
        reconnectBackoff);
  }

  public ProducerOptions withMaxOutstandingMessages(int n) {
    return new ProducerOptions(batchMessages, batchBytes, linger, n, blockTimeout, ackLevel, reconnectBackoff);
  }

  public ProducerOptions withBlockTimeout(Duration d) {
    return new ProducerOptions(batchMessages, batchBytes, linger, maxOutstandingMessages, d, ackLevel,
        reconnectBackoff);
  }

  public ProducerOptions withAckLevel(AckLevel level) {
    return new ProducerOptions(batchMessages, batchBytes, linger, maxOutstandingMessages, blockTimeout, level,
        reconnectBackoff);
  }
}
