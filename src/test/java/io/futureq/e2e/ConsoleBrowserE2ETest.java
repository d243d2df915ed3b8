package io.futureq.e2e;

import static io.futureq.e2e.ConsoleChecks.WAIT;
import static io.futureq.e2e.ConsoleChecks.at;
import static io.futureq.e2e.Messages.message;
import static io.futureq.e2e.Messages.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.api.grpc.GetMessageRequest;
import io.futureq.api.grpc.GetTopicStatsRequest;
import io.futureq.api.grpc.Message;
import io.futureq.api.grpc.PendingMessage;
import io.futureq.api.grpc.PublishRequest;
import io.futureq.security.TokenHash;
import io.futureq.testing.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.interactions.Actions;

/**
 * The web console in a real headless Chromium against a real broker with authentication on: the timeline, a
 * reschedule from the page, what a token without the admin permission sees and may call, and a page over 100,000
 * pending messages. One browser and one broker for the class; each test starts signed in afresh. Screenshots of
 * each page go to target/console-screenshots/.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ConsoleBrowserE2ETest {
  private static final String ADMIN = TokenHash.newToken();
  private static final String VIEWER = TokenHash.newToken();

  private TestBroker broker;
  private ConsoleBrowser browser;
  private String base;

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    Path access = Files.writeString(dir.resolve("access"), String.join("\n",
        "token root " + TokenHash.of(ADMIN), "grant root admin *", "grant root produce *", "grant root consume *",
        "token viewer " + TokenHash.of(VIEWER), "grant viewer produce *", "grant viewer consume *", ""));
    int port = TestPorts.free();
    base = "http://127.0.0.1:" + port;
    broker = TestBroker.start(dir.resolve("data"), Map.of("futureq.console.enabled", true,
        "futureq.console.port", port, "futureq.security.auth.enabled", true,
        "futureq.security.auth.access-file", access.toString()));
    browser = ConsoleBrowser.open(base);
  }

  @AfterAll
  void stop() {
    if (browser != null) {
      browser.close();
    }
    if (broker != null) {
      broker.close();
    }
  }

  @AfterEach
  void noBrowserErrors() {
    if (browser != null) {
      browser.assertNoErrors();
    }
  }

  @Test
  void timelineShowsMessagesOfTheNextMinuteInTheirSecondsAndMovesThemToOverdueWhenDue() throws Exception {
    ConsoleChecks.timelineOfTheNextMinute(browser, ADMIN, "console-timeline", Duration.ofSeconds(8), "timeline",
        this::publish);
  }

  @Test
  void aRescheduleFromTheTopicPageMovesTheMessage() throws Exception {
    String topic = "console-reschedule";
    publish(List.of(message(topic, "later", 3_600_000).setKey("order-1")));
    browser.signIn(ADMIN);
    browser.go("#/topic/" + topic);
    WebElement row = browser.await("the message's row", By.cssSelector("tr[data-key='order-1']"));
    row.findElement(By.className("reschedule-at")).sendKeys("30s");
    long asked = System.currentTimeMillis();
    row.findElement(By.className("reschedule-to")).click();
    browser.await("the confirmation", By.id("confirm-yes")).click();
    Await.until("the message is due about 30 s from the click", WAIT, () -> {
      long due = messageByKey(topic, "order-1").getDueUnixMs();
      return due >= asked + 29_000 && due <= System.currentTimeMillis() + 31_000;
    });
    Await.until("the page shows the moved message", WAIT, () -> browser.driver.findElements(
        By.cssSelector("tr[data-key='order-1']")).stream().anyMatch(r -> Long.parseLong(
            r.getAttribute("data-due-ms")) < asked + 60_000));
    browser.screenshot("topic");
  }

  @Test
  void aTokenWithoutAdminSeesNoPurgeButtonAndIsRefusedWhenItCallsPurge() throws Exception {
    String topic = "console-viewer";
    publish(List.of(message(topic, "x", 600_000)));
    browser.signIn(VIEWER);
    browser.go("#/topic/" + topic);
    browser.await("the page saying the token may not administer the topic", By.id("no-admin"));
    assertEquals(0, browser.driver.findElements(By.id("purge-topic")).size(), "no purge button");
    browser.go("#/actions");
    browser.await("the actions page saying so", By.id("no-admin"));
    assertEquals(0, browser.driver.findElements(By.id("form-purge")).size(), "no purge form");
    assertEquals(403, call("POST", "/api/topics/" + topic + "/purge", VIEWER).statusCode());
    assertEquals(401, call("POST", "/api/topics/" + topic + "/purge", null).statusCode());
    assertEquals(1, messageCount(topic), "nothing purged");
    HttpResponse<String> allowed = call("GET", "/api/timeline?span=minute&topic=" + topic, VIEWER);
    assertEquals(200, allowed.statusCode(), "a topic the token holds a permission on has a timeline");
  }

  @Test
  void everyPageRendersWith100000PendingMessagesWithinAGenerousBound() throws Exception {
    String topic = "console-big";
    long now = System.currentTimeMillis();
    for (int batch = 0; batch < 10; batch++) {
      List<Message.Builder> messages = new ArrayList<>(10_000);
      for (int i = 0; i < 10_000; i++) {
        messages.add(at(topic, "m", now + 120_000 + (batch * 10_000L + i) * 800));
      }
      publish(messages);
    }
    browser.signIn(ADMIN);
    long started = System.nanoTime();
    browser.go("#/timeline");
    Await.until("the all-topics timeline counts the 100,000", Duration.ofSeconds(30),
        () -> browser.driver.findElement(By.id("timeline-status")).getText().contains("100,0"));
    long timelineMs = (System.nanoTime() - started) / 1_000_000;
    browser.await("the span buttons", By.id("span-day")).click();
    Await.until("the day's bars hold them", Duration.ofSeconds(30), () -> browser.tableTotal() >= 100_000);
    browser.screenshot("timeline-day");
    WebElement canvas = browser.driver.findElement(By.id("timeline-canvas"));
    new Actions(browser.driver).moveToElement(canvas, -200, 0).clickAndHold().moveByOffset(150, 0).release()
        .perform();
    browser.await("the zoom's reset button", By.id("zoom-reset"));
    Await.until("the dragged range at a finer step than the day's 15 min", Duration.ofSeconds(30),
        () -> browser.stepMs() > 0 && browser.stepMs() < 900_000 && browser.tableTotal() > 0);
    started = System.nanoTime();
    browser.go("#/topics");
    browser.await("the topic's row", By.cssSelector("tr[data-topic='" + topic + "']"));
    browser.screenshot("topics");
    browser.go("#/topic/" + topic);
    browser.await("its first page of messages", By.cssSelector("#messages tbody tr"));
    long pagesMs = (System.nanoTime() - started) / 1_000_000;
    browser.screenshot("topic-big");
    browser.go("#/overview");
    browser.await("the totals", By.id("total-pending"));
    browser.screenshot("overview");
    browser.go("#/actions");
    browser.await("the reschedule form", By.id("form-reschedule"));
    browser.screenshot("actions");
    assertTrue(timelineMs < 30_000 && pagesMs < 30_000, "timeline " + timelineMs + " ms, topics and topic "
        + pagesMs + " ms");
  }

  private void publish(List<Message.Builder> messages) throws Exception {
    PublishRequest r = request(messages.toArray(Message.Builder[]::new));
    broker.producer.publish().addHeader("authorization", "Bearer " + ADMIN).invoke(r).toCompletableFuture()
        .get(30, TimeUnit.SECONDS);
  }

  private PendingMessage messageByKey(String topic, String key) throws Exception {
    return broker.admin.getMessage().addHeader("authorization", "Bearer " + ADMIN)
        .invoke(GetMessageRequest.newBuilder().setTopic(topic).setKey(key).build()).toCompletableFuture()
        .get(10, TimeUnit.SECONDS);
  }

  private long messageCount(String topic) throws Exception {
    return broker.admin.getTopicStats().addHeader("authorization", "Bearer " + ADMIN)
        .invoke(GetTopicStatsRequest.newBuilder().setTopic(topic).build()).toCompletableFuture()
        .get(10, TimeUnit.SECONDS).getPending();
  }

  private HttpResponse<String> call(String method, String path, String token) throws Exception {
    HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(base + path)).method(method,
        HttpRequest.BodyPublishers.noBody());
    if (token != null) {
      r.header("Authorization", "Bearer " + token);
    }
    return HttpClient.newHttpClient().send(r.build(), HttpResponse.BodyHandlers.ofString());
  }
}
