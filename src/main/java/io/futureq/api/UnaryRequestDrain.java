package io.futureq.api;

import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.Descriptors.MethodDescriptor;
import com.google.protobuf.Descriptors.ServiceDescriptor;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.FlowShape;
import org.apache.pekko.stream.UniformFanOutShape;
import org.apache.pekko.stream.javadsl.Broadcast;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.GraphDSL;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.util.ByteString;

/**
 * Reads a unary call's request body to its end even when the handler stops reading early.
 *
 * <p>pekko-grpc stops reading a unary request as soon as its one message fails to parse. If the
 * client's end-of-stream has not arrived by then, pekko-http resets the stream (RST_STREAM CANCEL)
 * and the client sees {@code CANCELLED} instead of the {@code INVALID_ARGUMENT} the handler
 * answered: a race seen in about 2 % of malformed publishes here. A unary request is one bounded
 * message (the size limit runs before this), so reading its rest costs nothing worth saving.
 */
final class UnaryRequestDrain {
  private final Set<String> unaryPaths;

  UnaryRequestDrain(List<FileDescriptor> files) {
    Set<String> paths = new HashSet<>();
    for (FileDescriptor file : files) {
      for (ServiceDescriptor service : file.getServices()) {
        for (MethodDescriptor method : service.getMethods()) {
          if (!method.isClientStreaming()) {
            paths.add("/" + service.getFullName() + "/" + method.getName());
          }
        }
      }
    }
    this.unaryPaths = Set.copyOf(paths);
  }

  boolean isUnary(String path) {
    return unaryPaths.contains(path);
  }

  /** Passes bytes through; once the downstream cancels, keeps reading and dropping them until the end. */
  static Flow<ByteString, ByteString, NotUsed> flow() {
    return Flow.fromGraph(GraphDSL.create(builder -> {
      // eagerCancel = false: the broadcast goes on feeding the ignoring sink after the handler cancels
      UniformFanOutShape<ByteString, ByteString> split = builder.add(Broadcast.create(2, false));
      builder.from(split.out(1)).to(builder.add(Sink.ignore()));
      return FlowShape.of(split.in(), split.out(0));
    }));
  }
}
