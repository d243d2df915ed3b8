package io.futureq.console;

import io.futureq.api.CallAccess;
import io.futureq.api.grpc.TopicSummary;
import io.futureq.log.BrokerStateMachine;
import io.futureq.security.Principal;
import io.grpc.Status;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.grpc.GrpcServiceException;
import org.apache.pekko.grpc.javadsl.Metadata;

/** What the console's routes use, built once by {@link ConsoleServer}. */
record ConsoleContext(CallAccess access, BrokerStateMachine state, ConsoleReads reads, ConsoleActions actions,
    TopicListing listing, TimelineReader timeline, TimelineStream stream, ConsoleOverview overview, Clock clock) {

  /**
   * The topics a timeline shows: {@code topic} alone, if the caller holds some permission on it (as ListTopics
   * would show it), or every topic the caller sees.
   */
  CompletableFuture<List<String>> timelineTopics(String topic, Principal principal, Metadata md) {
    if (topic == null) {
      return reads.topics(md).thenApply(list -> list.stream().map(TopicSummary::getName).toList());
    }
    if (!principal.seesTopic(topic)) {
      return CompletableFuture.failedFuture(new GrpcServiceException(Status.PERMISSION_DENIED.withDescription(
          "principal '" + principal.name() + "' holds no permission on topic '" + topic + "'")));
    }
    if (!state.knowsTopic(topic)) {
      return CompletableFuture.failedFuture(new GrpcServiceException(Status.NOT_FOUND.withDescription(
          "topic '" + topic + "' not found")));
    }
    return CompletableFuture.completedFuture(List.of(topic));
  }
}
