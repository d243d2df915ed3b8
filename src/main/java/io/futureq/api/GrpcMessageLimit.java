package io.futureq.api;

import io.grpc.Status;
import java.util.Optional;
import org.apache.pekko.NotUsed;
import org.apache.pekko.grpc.GrpcServiceException;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.util.ByteString;

/**
 * Refuses a gRPC message as soon as its length prefix exceeds the limit, before its bytes are
 * buffered: without it one client could make the broker hold a message of any size in memory
 * before {@link RequestValidator} ever sees it.
 */
final class GrpcMessageLimit {
  private static final int HEADER = 5;

  private final long maxBytes;
  private final byte[] header = new byte[HEADER];
  private int headerRead;
  private long payloadLeft;

  private GrpcMessageLimit(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  /** A pass-through flow over one request body that fails on the first message over {@code maxBytes}. */
  static Flow<ByteString, ByteString, NotUsed> flow(long maxBytes) {
    return Flow.<ByteString>create().statefulMap(() -> new GrpcMessageLimit(maxBytes), (limit, chunk) -> {
      limit.check(chunk);
      return Pair.create(limit, chunk);
    }, limit -> Optional.empty());
  }

  private void check(ByteString chunk) {
    int i = 0;
    while (i < chunk.size()) {
      if (payloadLeft > 0) {
        int take = (int) Math.min(payloadLeft, chunk.size() - i);
        payloadLeft -= take;
        i += take;
        continue;
      }
      header[headerRead++] = chunk.apply(i++);
      if (headerRead == HEADER) {
        headerRead = 0;
        payloadLeft = ((header[1] & 0xffL) << 24) | ((header[2] & 0xff) << 16) | ((header[3] & 0xff) << 8)
            | (header[4] & 0xff);
        if (payloadLeft > maxBytes) {
          throw new GrpcServiceException(Status.RESOURCE_EXHAUSTED.withDescription("message of " + payloadLeft
              + " bytes is larger than the limit of " + maxBytes + " bytes (futureq.api.max-batch-size plus 1 MiB)"));
        }
      }
    }
  }
}
