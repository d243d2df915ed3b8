package io.futureq.reliability;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Which late deliveries the crash loops and the partition test excuse: only what left the broker before the
 * answer and was held by a disrupted node that does not host the topic. Figures (ms) from the PartitionTest run
 * with seed 63957255404693, counted as a cancelled message redelivered before this rule covered redeliveries.
 */
class HeldOnTheWayTest {
  private static final long IN_FLIGHT_TIMEOUT_MS = 2000;
  private static final long DUE = 126_106;
  private static final long CANCEL_ANSWERED = 128_564;
  private static final Workload.Disruption LEADER_CUT_HOST_SPARED =
      new Workload.Disruption("cut node-2 (leader)", 126_000, 129_000, 132_100, Set.of("t"));
  private static final Workload.Disruption HOST_CUT =
      new Workload.Disruption("cut node-1 (leader)", 126_000, 129_000, 132_100, Set.of());

  private static Workload.Received delivery(int attempt, long receivedAtMs) {
    return new Workload.Received("g2", Workload.qualified("t", "m-1"), "p-1", DUE, receivedAtMs, attempt, receivedAtMs,
        0, 0);
  }

  private static boolean held(Workload.Received r, Workload.Disruption d) {
    return Workload.heldOnTheWay(r, CANCEL_ANSWERED, List.of(d), IN_FLIGHT_TIMEOUT_MS);
  }

  @Test
  void aRedeliveryWhoseTimeoutRanOutBeforeTheAnswerMayArriveWithTheHeldFirstDelivery() {
    assertTrue(held(delivery(1, 132_132), LEADER_CUT_HOST_SPARED), "first delivery, sent at its due time");
    assertTrue(held(delivery(2, 132_166), LEADER_CUT_HOST_SPARED), "redelivery, sent 2 s later, before the answer");
  }

  @Test
  void aRedeliveryThatCouldOnlyLeaveAfterTheAnswerIsNotExcused() {
    // due + 2 in-flight timeouts = 130.106, after the answer at 128.564: the broker sent it after the cancel.
    assertFalse(held(delivery(3, 132_200), LEADER_CUT_HOST_SPARED));
  }

  @Test
  void aDisruptedTopicHostExcusesNothing() {
    assertFalse(held(delivery(1, 132_132), HOST_CUT));
  }

  @Test
  void aDisruptionOverBeforeTheAnswerExcusesNothing() {
    Workload.Disruption healedEarly = new Workload.Disruption("cut node-2", 120_000, 121_000, 127_000, Set.of("t"));
    assertFalse(held(delivery(1, 132_132), healedEarly));
  }
}
