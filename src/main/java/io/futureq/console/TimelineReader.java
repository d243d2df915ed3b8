package io.futureq.console;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.futureq.log.DueCounts;
import io.futureq.log.TopicDueCounts;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A timeline's JSON: per topic, the messages due in each interval of a window and those overdue (due before now,
 * not yet acked), read from the counts this node keeps ({@link DueCounts}), never from the messages. The topics with
 * the most messages in the window get a series each; the rest are summed into one, so a page stays small.
 */
final class TimelineReader {
  static final int MAX_SERIES = 12;
  static final String OTHER_TOPICS = "(other topics)";

  private final DueWindows counts;

  TimelineReader(DueWindows counts) {
    this.counts = counts;
  }

  CompletableFuture<ObjectNode> read(List<String> topics, TimelineWindow window, long nowMs) {
    long nowSecond = Math.floorDiv(nowMs, 1000);
    List<CompletableFuture<Series>> reads = new ArrayList<>(topics.size());
    for (String topic : topics) {
      reads.add(counts.window(topic, window.fromSecond(), window.stepSeconds(), window.points(), nowSecond)
          .thenApply(w -> new Series(topic, w)));
    }
    return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)).thenApply(v -> {
      List<Series> all = new ArrayList<>(reads.size());
      reads.forEach(r -> all.add(r.join()));
      return toJson(all, window, nowMs);
    });
  }

  private static ObjectNode toJson(List<Series> all, TimelineWindow window, long nowMs) {
    all.sort(Comparator.comparingLong(Series::inWindow).reversed().thenComparing(Series::topic));
    ObjectNode out = ConsoleReply.object().put("nowMs", nowMs).put("fromMs", window.fromSecond() * 1000)
        .put("stepMs", window.stepSeconds() * 1000).put("points", window.points());
    ArrayNode series = out.putArray("series");
    long[] other = new long[window.points()];
    long otherOverdue = 0;
    long overdue = 0;
    long pending = 0;
    int others = 0;
    for (int i = 0; i < all.size(); i++) {
      Series s = all.get(i);
      TopicDueCounts.Window w = s.window();
      overdue += w.overdue();
      pending += w.total();
      if (i < MAX_SERIES) {
        series.add(seriesJson(s.topic(), w.counts(), w.overdue(), w.total(), w.firstSecond()));
      } else {
        others++;
        otherOverdue += w.overdue();
        for (int p = 0; p < other.length; p++) {
          other[p] += w.counts()[p];
        }
      }
    }
    if (others > 0) {
      series.add(seriesJson(OTHER_TOPICS, other, otherOverdue, -1, -1).put("topics", others));
    }
    return out.put("overdue", overdue).put("pending", pending);
  }

  private static ObjectNode seriesJson(String topic, long[] counts, long overdue, long total, long firstSecond) {
    ObjectNode s = ConsoleReply.object().put("topic", topic).put("overdue", overdue).put("pending", total);
    s.put("nextDueMs", firstSecond < 0 ? null : firstSecond * 1000);
    ArrayNode c = s.putArray("counts");
    for (long n : counts) {
      c.add(n);
    }
    return s;
  }

  private record Series(String topic, TopicDueCounts.Window window) {
    long inWindow() {
      long sum = 0;
      for (long n : window.counts()) {
        sum += n;
      }
      return sum;
    }
  }
}
