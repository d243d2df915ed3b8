package io.futureq.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.futureq.api.grpc.GroupStats;
import io.futureq.api.grpc.Lateness;
import io.futureq.api.grpc.ListTopicsResponse;
import io.futureq.api.grpc.TopicStats;
import io.futureq.api.grpc.TopicSummary;
import io.futureq.client.FutureQClient;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code futureq stats}: lists topics, or shows one topic's backlog and groups. */
@Command(name = "stats", mixinStandardHelpOptions = true,
    description = {"Without --topic, list topics with their pending count and groups.",
        "With --topic, show that topic's backlog and, per group, consumers, in flight, ready, delayed, lag",
        "(stored messages it has not acked) and the age of the oldest due message it has not acked.",
        "A topic that does not exist fails with NOT_FOUND, exit 1."})
final class StatsCommand extends BrokerCommand {
  @Option(names = "--topic", paramLabel = "TOPIC", description = "Show this topic's stats.")
  String topic;

  @Option(names = "--json", description = "Print one JSON object.")
  boolean json;

  @Override
  int run(FutureQClient client) throws InterruptedException {
    if (topic == null) {
      ListTopicsResponse topics = server.await(client.listTopics());
      if (json) {
        out().println(json(topics));
      } else {
        printText(topics);
      }
    } else {
      TopicStats stats = server.await(client.topicStats(topic));
      if (json) {
        out().println(json(stats));
      } else {
        printText(stats);
      }
    }
    return 0;
  }

  static ObjectNode json(ListTopicsResponse topics) {
    ObjectNode out = JsonNodeFactory.instance.objectNode();
    ArrayNode list = out.putArray("topics");
    for (TopicSummary t : topics.getTopicsList()) {
      ObjectNode topic = list.addObject().put("name", t.getName()).put("pending", t.getPending());
      t.getGroupsList().forEach(topic.putArray("groups")::add);
    }
    return out;
  }

  static ObjectNode json(TopicStats s) {
    ObjectNode out = JsonNodeFactory.instance.objectNode().put("topic", s.getTopic()).put("pending", s.getPending())
        .put("due_now", s.getDueNow()).put("next_due_unix_ms", noneAsNull(s.getNextDueUnixMs()))
        .put("oldest_due_age_ms", noneAsNull(s.getOldestDueAgeMs()));
    ArrayNode groups = out.putArray("groups");
    for (GroupStats g : s.getGroupsList()) {
      ObjectNode group = groups.addObject().put("name", g.getName()).put("consumers", g.getConsumers())
          .put("in_flight", g.getInFlight()).put("ready", g.getReady()).put("delayed", g.getDelayed())
          .put("lag", g.getLag()).put("oldest_unacked_due_age_ms", noneAsNull(g.getOldestUnackedDueAgeMs()));
      Lateness l = g.getLateness();
      group.putObject("lateness_us").put("deliveries", l.getDeliveries()).put("p50", l.getP50Us())
          .put("p90", l.getP90Us()).put("p99", l.getP99Us()).put("p99_9", l.getP999Us()).put("max", l.getMaxUs());
    }
    return out;
  }

  /** {@code value}, or null where the API's 0 means "none" (no message due, nothing unacked). */
  private static Long noneAsNull(long value) {
    return value == 0 ? null : value;
  }

  private void printText(ListTopicsResponse topics) {
    Table table = new Table("", "TOPIC", "PENDING", "GROUPS");
    for (TopicSummary t : topics.getTopicsList()) {
      table.row(t.getName(), t.getPending(), t.getGroupsCount() == 0 ? "-" : String.join(",", t.getGroupsList()));
    }
    table.print(out());
  }

  private void printText(TopicStats s) {
    PrintWriter out = out();
    out.println("topic: " + s.getTopic());
    out.println("pending: " + s.getPending());
    out.println("due now: " + s.getDueNow());
    out.println("next due: " + (s.getNextDueUnixMs() == 0 ? "-" : Instant.ofEpochMilli(s.getNextDueUnixMs())));
    out.println("oldest due age: " + age(s.getOldestDueAgeMs()));
    if (s.getGroupsCount() == 0) {
      out.println("groups: none");
      return;
    }
    out.println("groups:");
    Table table = new Table("  ", "GROUP", "CONSUMERS", "IN FLIGHT", "READY", "DELAYED", "LAG", "OLDEST UNACKED",
        "LATENESS P50/P99/MAX MS");
    for (GroupStats g : s.getGroupsList()) {
      Lateness l = g.getLateness();
      table.row(g.getName().isEmpty() ? "(universal)" : g.getName(), g.getConsumers(), g.getInFlight(),
          g.getReady(), g.getDelayed(), g.getName().isEmpty() ? "-" : g.getLag(),
          g.getName().isEmpty() ? "-" : age(g.getOldestUnackedDueAgeMs()),
          l.getDeliveries() == 0 ? "-" : String.format(Locale.ROOT,
              "%.1f/%.1f/%.1f", l.getP50Us() / 1000.0, l.getP99Us() / 1000.0, l.getMaxUs() / 1000.0));
    }
    table.print(out);
  }

  /** An age in seconds to the millisecond, every one alike ({@code 6.993s}, {@code 0.040s}); "-" for none (0). */
  static String age(long ms) {
    return ms == 0 ? "-" : String.format(Locale.ROOT, "%.3fs", ms / 1000.0);
  }
}
