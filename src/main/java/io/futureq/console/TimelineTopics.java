package io.futureq.console;

import io.futureq.api.grpc.TopicSummary;
import io.futureq.security.Principal;
import io.grpc.Status;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.grpc.GrpcServiceException;
import org.apache.pekko.grpc.javadsl.Metadata;

/**
 * The topics a timeline shows: one topic, if the caller holds some permission on it (as ListTopics would show it to
 * the caller), or every topic the caller sees.
 */
final class TimelineTopics {
  private final ConsoleReads reads;
  private final DueWindows counts;

  TimelineTopics(ConsoleReads reads, DueWindows counts) {
    this.reads = reads;
    this.counts = counts;
  }

  /** @param topic null for every topic the caller sees */
  CompletableFuture<List<String>> of(String topic, Principal principal, Metadata md) {
    if (topic == null) {
      return reads.topics(md).thenApply(list -> list.stream().map(TopicSummary::getName).toList());
    }
    if (!principal.seesTopic(topic)) {
      return CompletableFuture.failedFuture(new GrpcServiceException(Status.PERMISSION_DENIED.withDescription(
          "principal '" + principal.name() + "' holds no permission on topic '" + topic + "'")));
    }
    return counts.known(topic).thenApply(known -> {
      if (!known) {
        throw new GrpcServiceException(Status.NOT_FOUND.withDescription("topic '" + topic + "' not found"));
      }
      return List.of(topic);
    });
  }
}
