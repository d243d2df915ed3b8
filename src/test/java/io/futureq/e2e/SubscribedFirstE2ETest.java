package io.futureq.e2e;

import static io.futureq.e2e.Messages.message;
import static io.futureq.e2e.Messages.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.api.grpc.DeliveryFrame;
import io.futureq.api.grpc.GetTopicStatsRequest;
import io.futureq.api.grpc.GroupStats;
import io.futureq.api.grpc.Message;
import io.futureq.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * consumer.proto promises that a Subscribe stream's first frame has {@code subscribed} set and no deliveries. A
 * group with a backlog already due delivers to a new consumer the moment it takes it; that must not overtake the
 * {@code subscribed} frame (issue 27: [100 deliveries, subscribed, 100 deliveries] in 3 of 5 runs; here
 * 1 round of 10 before the fix).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SubscribedFirstE2ETest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final int ROUNDS = 20;
  private static final int BACKLOG = 200;
  @RegisterExtension
  static final BrokerExtension broker = BrokerExtension.withDefaults();

  @Test
  void theSubscribedFrameComesBeforeADueBacklogOfAnExistingGroup() throws Exception {
    for (int round = 0; round < ROUNDS; round++) {
      String topic = "subscribed-first-" + round;
      try (Subscription creator = Subscription.open(broker, topic, "g", 1)) {
        creator.awaitSubscribed(WAIT);
      }
      Await.until("group g of " + topic + " without consumers", WAIT, () -> consumers(topic) == 0);
      Message.Builder[] backlog = new Message.Builder[BACKLOG];
      for (int i = 0; i < BACKLOG; i++) {
        backlog[i] = message(topic, "m" + i, 0);
      }
      broker.producer().publish(request(backlog)).toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);

      try (Subscription sub = Subscription.open(broker, topic, "g", BACKLOG)) {
        sub.take(BACKLOG, WAIT);
        List<DeliveryFrame> frames = new ArrayList<>(sub.frames);
        String shape = "round " + round + ": " + shape(frames);
        assertTrue(frames.get(0).hasSubscribed(), shape);
        assertEquals(0, frames.get(0).getDeliveriesCount(), shape);
        assertEquals(1, frames.stream().filter(DeliveryFrame::hasSubscribed).count(), shape);
      }
    }
  }

  private static int consumers(String topic) throws Exception {
    return broker.admin().getTopicStats(GetTopicStatsRequest.newBuilder().setTopic(topic).build())
        .toCompletableFuture().get(10, TimeUnit.SECONDS).getGroupsList().stream()
        .filter(g -> g.getName().equals("g")).mapToInt(GroupStats::getConsumers).sum();
  }

  /** The frames as the issue wrote them: runs of deliveries and the subscribed frame, e.g. [100, subscribed, 100]. */
  private static String shape(List<DeliveryFrame> frames) {
    List<String> runs = new ArrayList<>();
    int deliveries = 0;
    for (DeliveryFrame f : frames) {
      if (f.hasSubscribed()) {
        if (deliveries > 0) {
          runs.add(String.valueOf(deliveries));
          deliveries = 0;
        }
        runs.add("subscribed" + (f.getDeliveriesCount() > 0 ? "+" + f.getDeliveriesCount() : ""));
      } else {
        deliveries += f.getDeliveriesCount();
      }
    }
    if (deliveries > 0) {
      runs.add(String.valueOf(deliveries));
    }
    return runs.toString();
  }
}
