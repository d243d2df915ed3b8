package io.futureq.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.futureq.api.grpc.TopicSummary;
import io.futureq.security.Principal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.grpc.javadsl.Metadata;

/**
 * The Topics page's rows: ListTopics (pending, groups), the next due time and what is overdue from the counts, and
 * for the first {@link #STATS_TOPICS} topics the caller administers, each group's lag from GetTopicStats.
 */
final class TopicListing {
  static final int STATS_TOPICS = 50;

  private final ConsoleReads reads;
  private final DueWindows counts;

  TopicListing(ConsoleReads reads, DueWindows counts) {
    this.reads = reads;
    this.counts = counts;
  }

  CompletableFuture<ObjectNode> list(Principal principal, Metadata md, long nowMs) {
    return reads.topics(md).thenCompose(topics -> {
      ObjectNode out = reads.topicsJson(topics, principal);
      List<CompletableFuture<?>> parts = new ArrayList<>();
      int withStats = 0;
      for (int i = 0; i < topics.size(); i++) {
        TopicSummary t = topics.get(i);
        ObjectNode row = (ObjectNode) out.get("topics").get(i);
        long nowSecond = Math.floorDiv(nowMs, 1000);
        parts.add(counts.window(t.getName(), nowSecond, 1, 60, nowSecond).thenAccept(w -> {
          row.put("nextDueMs", w.firstSecond() < 0 ? null : w.firstSecond() * 1000).put("overdue", w.overdue());
          long nextMinute = 0;
          for (long n : w.counts()) {
            nextMinute += n;
          }
          row.put("dueNextMinute", nextMinute);
        }));
        if (row.get("admin").asBoolean() && withStats++ < STATS_TOPICS) {
          parts.add(reads.topic(t.getName(), principal, md).handle((stats, failure) -> {
            if (failure == null) {
              groupTotals(stats, row);
            }
            return null;
          }));
        }
      }
      // each row is written by one future only, and read after all are done
      return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).thenApply(v -> out);
    });
  }

  /** The largest lag and lateness p99 of the topic's groups, and their first deliveries since they started here. */
  private static void groupTotals(ObjectNode stats, ObjectNode row) {
    long lag = 0;
    long p99 = 0;
    long deliveries = 0;
    for (JsonNode g : stats.get("groups")) {
      lag = Math.max(lag, g.get("lag").asLong());
      p99 = Math.max(p99, g.get("latenessP99Us").asLong());
      deliveries += g.get("deliveries").asLong();
    }
    row.put("lag", lag).put("latenessP99Us", p99).put("deliveries", deliveries);
  }
}
