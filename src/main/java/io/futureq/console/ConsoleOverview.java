package io.futureq.console;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.futureq.api.grpc.TopicSummary;
import io.futureq.metrics.NodeMetrics;
import io.futureq.security.Principal;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.grpc.javadsl.Metadata;

/** The Overview page: the cluster as GetClusterInfo says, totals over the caller's topics, version and settings. */
final class ConsoleOverview {
  private final ConsoleReads reads;
  private final TimelineReader timeline;
  private final ObjectNode settings;
  private final boolean authentication;

  /** @param settings the settings that matter to an operator, as shown */
  ConsoleOverview(ConsoleReads reads, TimelineReader timeline, ObjectNode settings, boolean authentication) {
    this.reads = reads;
    this.timeline = timeline;
    this.settings = settings;
    this.authentication = authentication;
  }

  ObjectNode session(Principal principal) {
    return ConsoleReply.object().put("principal", principal.name()).put("authentication", authentication)
        .put("version", NodeMetrics.version());
  }

  CompletableFuture<ObjectNode> overview(Principal principal, Metadata md, long nowMs) {
    CompletableFuture<List<TopicSummary>> topics = reads.topics(md);
    CompletableFuture<ObjectNode> minute = topics.thenCompose(list -> timeline.read(
        list.stream().map(TopicSummary::getName).toList(), TimelineWindow.of("minute", null, null, nowMs), nowMs));
    return reads.cluster(md).thenCombine(topics, (cluster, list) -> {
      ObjectNode out = ConsoleReads.clusterJson(cluster).put("version", NodeMetrics.version());
      out.set("settings", settings);
      out.putObject("totals").put("topics", list.size())
          .put("pending", list.stream().mapToLong(TopicSummary::getPending).sum());
      return out;
    }).thenCombine(minute, (out, m) -> {
      long dueNextMinute = 0;
      for (var series : m.get("series")) {
        for (var n : series.get("counts")) {
          dueNextMinute += n.asLong();
        }
      }
      ((ObjectNode) out.get("totals")).put("dueNextMinute", dueNextMinute).put("overdue", m.get("overdue").asLong());
      return out;
    });
  }
}
