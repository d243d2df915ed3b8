package io.futureq.e2e;

import static io.futureq.e2e.ConsoleChecks.WAIT;
import static io.futureq.e2e.ConsoleChecks.at;
import static io.futureq.e2e.Messages.request;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.api.grpc.Message;
import io.futureq.api.grpc.PublishRequest;
import io.futureq.security.TokenHash;
import io.futureq.testing.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web console in a real headless Firefox (Debian's firefox-esr, driven through Marionette: {@link
 * ConsoleFirefox}) against a real broker with authentication on: the timeline of the next minute, as {@link
 * ConsoleBrowserE2ETest} checks it in Chromium, and every page, each without an error in the browser's console.
 * Screenshots go to target/console-screenshots/firefox-*.png. Skips, saying why, where Firefox is not installed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ConsoleFirefoxE2ETest {
  private static final String ADMIN = TokenHash.newToken();

  private TestBroker broker;
  private ConsoleFirefox firefox;

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    if (ConsoleFirefox.binary() == null) {
      return; // each test skips, saying why
    }
    Path access = Files.writeString(dir.resolve("access"), String.join("\n",
        "token root " + TokenHash.of(ADMIN), "grant root admin *", "grant root produce *", "grant root consume *",
        ""));
    int port = TestPorts.free();
    String base = "http://127.0.0.1:" + port;
    firefox = ConsoleFirefox.open(base, dir);
    broker = TestBroker.start(dir.resolve("data"), Map.of("futureq.console.enabled", true,
        "futureq.console.port", port, "futureq.security.auth.enabled", true,
        "futureq.security.auth.access-file", access.toString()));
  }

  @AfterAll
  void stop() {
    if (firefox != null) {
      firefox.close();
    }
    if (broker != null) {
      broker.close();
    }
  }

  @BeforeEach
  void needsFirefox() {
    Assumptions.assumeTrue(firefox != null, ConsoleFirefox.MISSING);
  }

  @AfterEach
  void noBrowserErrors() {
    if (firefox != null) {
      firefox.assertNoErrors();
    }
  }

  @Test
  void timelineShowsMessagesOfTheNextMinuteInTheirSecondsAndMovesThemToOverdueWhenDue() throws Exception {
    // A longer lead than in Chromium: the first page load of a fresh Firefox profile is slower.
    ConsoleChecks.timelineOfTheNextMinute(firefox, ADMIN, "firefox-timeline", Duration.ofSeconds(15),
        "firefox-timeline", this::publish);
  }

  @Test
  void everyPageRendersWithoutErrors() throws Exception {
    String topic = "firefox-pages";
    long now = System.currentTimeMillis();
    List<Message.Builder> messages = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      messages.add(at(topic, "m" + i, now + 60_000 + i * 15_000L));
    }
    publish(messages);
    firefox.signIn(ADMIN);
    firefox.go("#/overview");
    firefox.awaitShown("the totals", "#total-pending");
    firefox.screenshot("firefox-overview");
    firefox.go("#/timeline");
    firefox.awaitShown("the all-topics chart", "#timeline-canvas");
    Await.until("its status counts them", WAIT, () -> firefox.number(
        "return document.getElementById('timeline-status').textContent.includes('pending') ? 1 : 0;") == 1);
    firefox.screenshot("firefox-timeline-all");
    firefox.go("#/timeline/" + topic);
    firefox.awaitShown("the span buttons", "#span-hour");
    firefox.number("document.getElementById('span-hour').click(); return 0;");
    Await.until("the hour's bars (coarser than a second) hold all 200, due within 51 min", WAIT,
        () -> firefox.stepMs() > 1000 && firefox.tableTotal() == 200,
        () -> "step " + firefox.stepMs() + " ms, " + firefox.tableTotal() + " in the bars");
    firefox.screenshot("firefox-timeline-hour");
    firefox.go("#/topics");
    firefox.awaitShown("the topic's row", "tr[data-topic='" + topic + "']");
    firefox.screenshot("firefox-topics");
    firefox.go("#/topic/" + topic);
    firefox.awaitShown("its first page of messages", "#messages tbody tr");
    firefox.screenshot("firefox-topic");
    firefox.go("#/actions");
    firefox.awaitShown("the reschedule form", "#form-reschedule");
    firefox.screenshot("firefox-actions");
  }

  @Test
  void theCheckForErrorsSeesWhatAPageLogs() {
    firefox.signIn(ADMIN);
    firefox.number("console.error('a probe', 42); setTimeout(() => { throw new Error('a thrown probe'); }); return 0;");
    List<String> errors = Await.until("both probes among the page's errors", WAIT, firefox::errors,
        e -> e.size() == 2);
    assertTrue(errors.get(0).contains("console.error: a probe 42"), errors.toString());
    assertTrue(errors.get(1).contains("a thrown probe"), errors.toString());
  }

  private void publish(List<Message.Builder> messages) throws Exception {
    PublishRequest r = request(messages.toArray(Message.Builder[]::new));
    broker.producer.publish().addHeader("authorization", "Bearer " + ADMIN).invoke(r).toCompletableFuture()
        .get(30, TimeUnit.SECONDS);
  }
}
