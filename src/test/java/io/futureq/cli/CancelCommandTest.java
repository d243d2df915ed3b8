package io.futureq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.e2e.BrokerExtension;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code futureq cancel} against a real broker. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CancelCommandTest {
  @RegisterExtension
  static final BrokerExtension broker = BrokerExtension.withDefaults();
  static String server;

  @BeforeAll
  static void start() {
    server = broker.server();
  }

  @Test
  void cancelsByKeyThenReportsNotFound() {
    String id = publish("cli-cancel-key", "--key", "order-42");

    Cli.Result cancelled = Cli.run("cancel", "--server", server, "--topic", "cli-cancel-key", "--key", "order-42");
    Cli.Result again = Cli.run("cancel", "--server", server, "--topic", "cli-cancel-key", "--key", "order-42");

    assertEquals(0, cancelled.exit(), cancelled.toString());
    assertEquals("cancelled " + id + "\n", cancelled.out());
    assertEquals(3, again.exit(), again.toString());
    assertEquals("not found\n", again.out());
    assertEquals("", again.err());
  }

  @Test
  void publishingAPendingKeyAgainSaysNothingNewWasStored() {
    String id = publish("cli-dup-key", "--key", "order-7");

    Cli.Result again = Cli.run("publish", "--server", server, "--topic", "cli-dup-key", "--delay", "10s", "--key",
        "order-7", "payload");

    assertEquals(0, again.exit(), again.toString());
    assertEquals(id + "\n", again.out(), "the pending message's id");
    assertEquals("futureq: key order-7 is already pending on topic cli-dup-key: that message was kept, nothing new "
        + "stored\n", again.err());
  }

  @Test
  void cancelsByIdThenReportsNotFound() {
    String id = publish("cli-cancel-id");

    Cli.Result cancelled = Cli.run("cancel", "--server", server, "--topic", "cli-cancel-id", "--id", id);
    Cli.Result again = Cli.run("cancel", "--server", server, "--topic", "cli-cancel-id", "--id", id);

    assertEquals(0, cancelled.exit(), cancelled.toString());
    assertEquals("cancelled " + id + "\n", cancelled.out());
    assertEquals(3, again.exit(), again.toString());
    assertEquals("not found\n", again.out());
  }

  @Test
  void reportsAMalformedIdWithTheBrokersMessage() {
    Cli.Result r = Cli.run("cancel", "--server", server, "--topic", "cli-cancel-id", "--id", "not-an-id");
    assertEquals(1, r.exit(), r.toString());
    assertTrue(r.err().startsWith("futureq: INVALID_ARGUMENT: message_id"), r.toString());
    assertEquals(1, r.err().lines().count(), r.toString());
  }

  @Test
  void needsExactlyOneOfKeyAndId() {
    Cli.Result neither = Cli.run("cancel", "--server", server, "--topic", "t");
    Cli.Result both = Cli.run("cancel", "--server", server, "--topic", "t", "--key", "k", "--id", "i");
    assertEquals(2, neither.exit(), neither.toString());
    assertTrue(neither.err().contains("--key") && neither.err().contains("--id"), neither.toString());
    assertEquals(2, both.exit(), both.toString());
    assertTrue(both.err().contains("mutually exclusive"), both.toString());
  }

  private static String publish(String topic, String... extra) {
    String[] args = new String[8 + extra.length];
    System.arraycopy(new String[] {"publish", "--server", server, "--topic", topic, "--delay", "1h", "payload"}, 0,
        args, 0, 8);
    System.arraycopy(extra, 0, args, 8, extra.length);
    Cli.Result r = Cli.run(args);
    assertEquals(0, r.exit(), r.toString());
    return r.out().trim();
  }
}
