package io.futureq.testing;

import io.futureq.api.grpc.GroupStats;
import io.futureq.api.grpc.TopicStats;
import io.futureq.client.FutureQClient;
import io.futureq.client.FutureQException;
import io.grpc.Status;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A consumer group's consumers as a broker's GetTopicStats counts them: a subscription's registration is applied
 * some time after the client subscribed, so a test that publishes to a group waits for its consumer first.
 */
public final class Groups {
  private Groups() {
  }

  /** The consumers {@code client}'s broker counts in {@code group} of {@code topic}; 0 while the topic is unknown. */
  public static int consumers(FutureQClient client, String topic, String group) throws Exception {
    TopicStats stats;
    try {
      stats = client.topicStats(topic).get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof FutureQException f && f.code() == Status.Code.NOT_FOUND) {
        return 0; // the topic is known once its first group's registration is applied
      }
      throw e;
    }
    return stats.getGroupsList().stream().filter(g -> g.getName().equals(group)).mapToInt(GroupStats::getConsumers)
        .findFirst().orElse(0);
  }

  /** Waits until {@code group} of {@code topic} has at least one consumer. */
  public static void awaitConsumer(FutureQClient client, String topic, String group, Duration within) {
    awaitConsumer(client, topic, group, within, () -> "");
  }

  /** As {@link #awaitConsumer(FutureQClient, String, String, Duration)}; a timeout adds what {@code state} says. */
  public static void awaitConsumer(FutureQClient client, String topic, String group, Duration within,
      Supplier<String> state) {
    int[] seen = {-1};
    Await.until("group " + group + " of " + topic + " has a consumer", within, () -> {
      seen[0] = consumers(client, topic, group);
      return seen[0] > 0;
    }, () -> "consumers last seen: " + seen[0] + " " + state.get());
  }

  /** Waits until {@code group} of {@code topic} has exactly {@code expected} consumers. */
  public static void awaitConsumers(FutureQClient client, String topic, String group, int expected,
      Duration within) {
    Await.until("group " + group + " of " + topic + " has " + expected + " consumers", within,
        () -> consumers(client, topic, group), n -> n == expected);
  }
}
