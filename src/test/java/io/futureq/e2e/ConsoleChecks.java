package io.futureq.e2e;

import static io.futureq.e2e.Messages.message;

import io.futureq.api.grpc.Message;
import io.futureq.testing.Await;
import java.time.Duration;
import java.util.List;

/** Checks of the console that every browser test makes alike, whichever browser shows the page. */
final class ConsoleChecks {
  static final Duration WAIT = Duration.ofSeconds(20);

  private ConsoleChecks() {
  }

  /** Publishes messages in one request. */
  @FunctionalInterface
  interface Publisher {
    void publish(List<Message.Builder> messages) throws Exception;
  }

  static Message.Builder at(String topic, String payload, long dueMs) {
    return message(topic, payload, 0).clearDelayMs().setDeliverAtUnixMs(dueMs);
  }

  /**
   * Publishes 3 messages due about {@code lead} from now and 2 due 12 s later on {@code topic}, opens its timeline
   * signed in with {@code token}, and awaits the 3 and the 2 in their seconds (then a screenshot {@code name}) and
   * then the first 3 overdue (nothing consumes them) and gone from their second.
   */
  static void timelineOfTheNextMinute(ConsolePage page, String token, String topic, Duration lead, String name,
      Publisher publisher) throws Exception {
    long first = (System.currentTimeMillis() / 1000 + lead.toSeconds()) * 1000 + 300;
    long second = first + 12_000;
    publisher.publish(List.of(at(topic, "a", first), at(topic, "b", first), at(topic, "c", first),
        at(topic, "d", second), at(topic, "e", second)));
    page.signIn(token);
    page.go("#/timeline/" + topic);
    page.awaitShown("the timeline's chart", "#timeline-canvas");
    Await.until("the timeline shows 3 messages in their second and 2 in theirs", WAIT,
        () -> page.countAt(first / 1000 * 1000) == 3 && page.countAt(second / 1000 * 1000) == 2,
        () -> "seen " + page.countAt(first / 1000 * 1000) + " and " + page.countAt(second / 1000 * 1000));
    page.screenshot(name);
    Await.until("the first 3 come due: overdue (no consumer acks them) and gone from their second",
        WAIT.plus(lead), () -> page.overdue() == 3 && page.countAt(first / 1000 * 1000) == 0
            && page.countAt(second / 1000 * 1000) == 2,
        () -> "overdue " + page.overdue() + ", " + page.countAt(first / 1000 * 1000) + " and "
            + page.countAt(second / 1000 * 1000) + " in their seconds");
  }
}
