package io.futureq.api;

import io.grpc.Status;
import org.apache.pekko.NotUsed;
import org.apache.pekko.grpc.GrpcServiceException;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.FlowShape;
import org.apache.pekko.stream.Inlet;
import org.apache.pekko.stream.Outlet;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.stage.AbstractInHandler;
import org.apache.pekko.stream.stage.AbstractOutHandler;
import org.apache.pekko.stream.stage.GraphStage;
import org.apache.pekko.stream.stage.GraphStageLogic;
import org.apache.pekko.util.ByteString;

/**
 * Refuses a gRPC message as soon as its length prefix exceeds the limit, before its bytes are
 * buffered: without it one client could make the broker hold a message of any size in memory
 * before {@link RequestValidator} ever sees it.
 *
 * <p>The refusal fails the call with {@code RESOURCE_EXHAUSTED} but goes on reading (and dropping) the rest of the
 * request body. Had it stopped reading, pekko-http would reset the stream (RST_STREAM CANCEL) while the client is
 * still sending, and the client would see {@code CANCELLED} instead of the status naming the limit. Dropping bytes
 * costs no memory, and the client ends its side once it has the status.
 */
final class GrpcMessageLimit extends GraphStage<FlowShape<ByteString, ByteString>> {
  private static final int HEADER = 5;

  private final Inlet<ByteString> in = Inlet.create("GrpcMessageLimit.in");
  private final Outlet<ByteString> out = Outlet.create("GrpcMessageLimit.out");
  private final FlowShape<ByteString, ByteString> shape = FlowShape.of(in, out);
  private final long maxBytes;

  private GrpcMessageLimit(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  /** A pass-through flow over one request body that fails on the first message over {@code maxBytes}. */
  static Flow<ByteString, ByteString, NotUsed> flow(long maxBytes) {
    return Flow.fromGraph(new GrpcMessageLimit(maxBytes));
  }

  @Override
  public FlowShape<ByteString, ByteString> shape() {
    return shape;
  }

  @Override
  public GraphStageLogic createLogic(Attributes attributes) {
    return new Logic();
  }

  private final class Logic extends GraphStageLogic {
    private final byte[] header = new byte[HEADER];
    private int headerRead;
    private long payloadLeft;
    private boolean refused;

    Logic() {
      super(shape);
      setHandler(in, new AbstractInHandler() {
        @Override
        public void onPush() {
          ByteString chunk = grab(in);
          if (refused) {
            pull(in);
            return;
          }
          GrpcServiceException tooLarge = check(chunk);
          if (tooLarge == null) {
            push(out, chunk);
            return;
          }
          refused = true;
          fail(out, tooLarge);
          pull(in);
        }
      });
      setHandler(out, new AbstractOutHandler() {
        @Override
        public void onPull() {
          pull(in);
        }
      });
    }

    /** The refusal of the first message in {@code chunk} over the limit, or null. */
    private GrpcServiceException check(ByteString chunk) {
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
            return new GrpcServiceException(Status.RESOURCE_EXHAUSTED.withDescription("message of " + payloadLeft
                + " bytes is larger than the limit of " + maxBytes
                + " bytes (futureq.api.max-batch-size plus 1 MiB)"));
          }
        }
      }
      return null;
    }
  }
}
