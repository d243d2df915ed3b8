package io.futureq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.e2e.BrokerExtension;
import io.futureq.testing.Await;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code futureq peek, get, reschedule, group delete, topic purge|delete} against a real broker. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class AdminCommandsTest {
  @RegisterExtension
  static final BrokerExtension broker = BrokerExtension.withDefaults();
  static String server;

  @BeforeAll
  static void start() {
    server = broker.server();
  }

  @Test
  void peeksGetsAndReschedulesAPendingMessage() {
    String id = ok("publish", "--server", server, "--topic", "cli-admin", "--delay", "1h", "--key", "order-9",
        "--header", "kind=email", "wake up").out().trim();
    ok("publish", "--server", server, "--topic", "cli-admin", "--delay", "2h", "later");

    Cli.Result peek = ok("peek", "--server", server, "--topic", "cli-admin", "--limit", "1");
    assertTrue(peek.lines().get(0).matches("ID\\s+KEY\\s+DUE\\s+ENQUEUED\\s+SIZE\\s+HEADERS"), peek.toString());
    assertTrue(peek.lines().get(1).matches(id + "\\s+order-9\\s+\\S+Z\\s+\\S+Z\\s+7\\s+kind=email"), peek.toString());
    Matcher more = Pattern.compile("more: --page-token (\\w+)").matcher(peek.lines().get(2));
    assertTrue(more.matches(), peek.toString());
    Cli.Result next = ok("peek", "--server", server, "--topic", "cli-admin", "--page-token", more.group(1),
        "--payload", "--json");
    assertTrue(next.out().matches("\\{\"messages\":\\[\\{\"message_id\":\"\\w{32}\",\"key\":\"\",.*"
        + "\"payload\":\"later\"}],\"next_page_token\":\"\"}\n"), next.toString());

    Cli.Result got = ok("get", "--server", server, "--topic", "cli-admin", "--key", "order-9", "--payload");
    assertTrue(got.out().startsWith("id: " + id + "\nkey: order-9\ndue: "), got.toString());
    assertTrue(got.out().endsWith("size: 7\nheaders: kind=email\npayload: \"wake up\"\n"), got.toString());

    Cli.Result moved = ok("reschedule", "--server", server, "--topic", "cli-admin", "--key", "order-9", "--at",
        "2030-01-01T00:00:00Z");
    Matcher newId = Pattern.compile("rescheduled (\\w{32}) due 2030-01-01T00:00:00Z \\(was " + id + "\\)\n")
        .matcher(moved.out());
    assertTrue(newId.matches(), moved.toString());
    Cli.Result json = ok("get", "--server", server, "--topic", "cli-admin", "--id", newId.group(1), "--json");
    assertTrue(json.out().contains("\"key\":\"order-9\",\"due_at_unix_ms\":1893456000000,"), json.toString());
    Cli.Result now = ok("reschedule", "--server", server, "--topic", "cli-admin", "--key", "order-9", "--now",
        "--json");
    assertTrue(now.out().matches("\\{\"message_id\":\"\\w{32}\",\"previous_message_id\":\"" + newId.group(1)
        + "\",\"due_at_unix_ms\":\\d+}\n"), now.toString());

    Cli.Result gone = Cli.run("get", "--server", server, "--topic", "cli-admin", "--key", "nope");
    assertEquals(1, gone.exit(), gone.toString());
    assertEquals("futureq: NOT_FOUND: key 'nope': no pending message on topic cli-admin\n", gone.err());
    Cli.Result badLimit = Cli.run("peek", "--server", server, "--topic", "cli-admin", "--limit", "0");
    assertEquals(2, badLimit.exit(), badLimit.toString());
    Cli.Result noDue = Cli.run("reschedule", "--server", server, "--topic", "cli-admin", "--key", "order-9");
    assertEquals(2, noDue.exit(), noDue.toString());
  }

  @Test
  void deletesAGroupThenPurgesAndDeletesItsTopic() {
    ok("publish", "--server", server, "--topic", "cli-admin-del", "first");
    ok("consume", "--server", server, "--topic", "cli-admin-del", "--group", "billng", "--count", "1");
    awaitAcked("cli-admin-del");
    ok("publish", "--server", server, "--topic", "cli-admin-del", "--delay", "1h", "second");

    assertEquals("deleted group billng of topic cli-admin-del; 0 messages only it held were deleted\n",
        ok("group", "delete", "--server", server, "--topic", "cli-admin-del", "--group", "billng").out());
    Cli.Result again = Cli.run("group", "delete", "--server", server, "--topic", "cli-admin-del", "--group", "billng");
    assertEquals(1, again.exit(), again.toString());
    assertEquals("futureq: NOT_FOUND: group: topic cli-admin-del has no group 'billng'\n", again.err());

    assertEquals("{\"topic\":\"cli-admin-del\",\"removed\":1}\n",
        ok("topic", "purge", "--server", server, "--topic", "cli-admin-del", "--json").out());
    ok("publish", "--server", server, "--topic", "cli-admin-del", "now");
    ok("consume", "--server", server, "--topic", "cli-admin-del", "--group", "billing", "--count", "1");
    awaitAcked("cli-admin-del");
    ok("publish", "--server", server, "--topic", "cli-admin-del", "--delay", "1h", "third");
    assertEquals("deleted topic cli-admin-del; 1 messages and groups billing\n",
        ok("topic", "delete", "--server", server, "--topic", "cli-admin-del").out());

    Cli.Result stats = Cli.run("stats", "--server", server, "--topic", "cli-admin-del");
    assertEquals(1, stats.exit(), stats.toString());
    assertEquals("futureq: NOT_FOUND: topic: no topic named cli-admin-del\n", stats.err());
  }

  /**
   * Consume exits once its ack is sent; the broker writes acks as deletes a moment later (delete-batch-interval).
   * A group deleted before that drops its unwritten acks, and its only message stays for the next group.
   */
  private static void awaitAcked(String topic) {
    Await.until("the consumed message of " + topic + " deleted", Duration.ofSeconds(30),
        () -> Cli.run("stats", "--server", server, "--topic", topic, "--json").out(),
        stats -> stats.contains("\"pending\":0,"));
  }

  private static Cli.Result ok(String... args) {
    Cli.Result r = Cli.run(args);
    assertEquals(0, r.exit(), r.toString());
    return r;
  }
}
