package io.futureq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.e2e.TestPorts;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Usage errors exit 2 naming the flag; an unreachable broker exits 1 with one line, in bounded time. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CommandLineErrorsTest {
  private static final String NOBODY = "127.0.0.1:1";

  @Test
  void missingTopicIsAUsageError() {
    assertUsageError(Cli.run("publish", "--server", NOBODY, "hi"), "--topic");
    assertUsageError(Cli.run("consume", "--server", NOBODY, "--count", "1"), "--topic");
    assertUsageError(Cli.run("cancel", "--server", NOBODY, "--key", "k"), "--topic");
  }

  @Test
  void badDurationsAreUsageErrors() {
    assertUsageError(Cli.run("publish", "--server", NOBODY, "--topic", "t", "--delay", "5x", "hi"), "--delay");
    assertUsageError(Cli.run("publish", "--server", NOBODY, "--topic", "t", "--ttl", "90", "hi"), "--ttl");
    Cli.Result at = Cli.run("publish", "--server", NOBODY, "--topic", "t", "--at", "tomorrow", "hi");
    assertUsageError(at, "--at");
    assertTrue(at.err().contains("'tomorrow' is not an ISO-8601 instant such as 2026-12-01T10:00:00Z"), at.toString());
    Cli.Result noUnit = Cli.run("publish", "--server", NOBODY, "--topic", "t", "--delay", "90", "hi");
    assertTrue(noUnit.err().contains("'90' has no unit (use e.g. 500ms, 1.5s"), noUnit.toString());
  }

  @Test
  void delayAndAtTogetherAreAUsageError() {
    Cli.Result r = Cli.run("publish", "--server", NOBODY, "--topic", "t", "--delay", "5s", "--at",
        "2026-12-01T10:00:00Z", "hi");
    assertUsageError(r, "--at");
    assertTrue(r.err().contains("--delay") && r.err().contains("mutually exclusive"), r.toString());
  }

  @Test
  void serverMustBeHostAndPort() {
    for (String bad : new String[] {"localhost", "localhost:", ":8443", "host:99999", "host:0", "host:port",
        "http://localhost:8443", "https://broker:8443/", "broker:8443/path"}) {
      assertUsageError(Cli.run("stats", "--server", bad), "--server");
    }
    assertTrue(Cli.run("stats", "--server", "host:port").err().contains("'host:port' is not HOST:PORT (port must be a "
        + "number)"));
    assertTrue(Cli.run("stats", "--server", "host:0").err().contains("'host:0': port must be 1-65535"));
    Cli.Result scheme = Cli.run("publish", "--server", "http://localhost:8443", "--topic", "t", "hi");
    assertTrue(scheme.err().contains("without a scheme or path (localhost:8443); --tls chooses TLS"),
        scheme.toString());
  }

  /** bash and zsh completion of every command and option: source <(bin/futureq generate-completion). */
  @Test
  void generatesAShellCompletionScript() {
    Cli.Result r = Cli.run("generate-completion");
    assertEquals(0, r.exit(), r.toString());
    assertTrue(r.out().contains("complete -F _complete_futureq"), r.out());
    assertTrue(r.out().contains("--topic") && r.out().contains("consume"), r.out());
  }

  /** The TLS help names the certificate's key option, not --key (a message's idempotency key). */
  @Test
  void theTlsHelpNamesTheCertificateKeyOption() {
    String help = Cli.run("publish", "--help").out().replaceAll("\\s+", " ");
    assertTrue(help.contains("--ca, --cert and --cert-key imply it."), help);
  }

  @Test
  void theServerDefaultsToTheLocalBroker() {
    for (String command : new String[] {"publish", "consume", "cancel", "stats", "cluster", "bench"}) {
      Cli.Result r = Cli.run(command, "--help");
      assertTrue(r.out().replaceAll("\\s+", " ").contains("(default: $FUTUREQ_SERVER, else 127.0.0.1:8443)"),
          r.toString());
    }
    String unused = "127.0.0.1:" + TestPorts.free();
    Cli.Result r = Cli.run("stats", "--server", unused, "--timeout", "1s");
    assertTrue(r.err().contains(unused), "the flag wins over the default: " + r);
  }

  @Test
  void aFlagErrorIsOneLineAndAHint() {
    Cli.Result r = Cli.run("stats", "--server", NOBODY, "--topik");
    assertEquals(2, r.exit(), r.toString());
    assertEquals(List.of("futureq: Unknown option: '--topik'",
        "Did you mean --token or --topic? Try 'futureq stats --help' for the options."), r.err().lines().toList());
    Cli.Result nested = Cli.run("cluster", "leave", "--server", NOBODY);
    assertEquals(List.of("futureq: Missing required option: '--node-id=<nodeId>'",
        "Try 'futureq cluster leave --help' for the options."), nested.err().lines().toList());
  }

  @Test
  void countMustBePositive() {
    assertUsageError(Cli.run("consume", "--server", NOBODY, "--topic", "t", "--count", "0"), "--count");
    assertUsageError(Cli.run("consume", "--server", NOBODY, "--topic", "t", "--max-in-flight", "0"),
        "--max-in-flight");
  }

  @Test
  void publishWithoutTextOrInputIsAUsageError() {
    assertUsageError(Cli.runWithInput("", "publish", "--server", NOBODY, "--topic", "t"), "TEXT");
  }

  @Test
  void unreachableBrokerFailsWithOneLine() {
    String server = "127.0.0.1:" + TestPorts.free();
    String[][] commands = {
        {"publish", "--topic", "t", "hi"},
        {"consume", "--topic", "t", "--group", "g", "--count", "1"},
        {"cancel", "--topic", "t", "--key", "k"},
        {"stats"},
        {"stats", "--topic", "t", "--json"},
        {"cluster"}};
    for (String[] command : commands) {
      String[] args = new String[command.length + 4];
      System.arraycopy(command, 0, args, 0, command.length);
      System.arraycopy(new String[] {"--server", server, "--timeout", "2s"}, 0, args, command.length, 4);
      Cli.Result r = Cli.run(args);
      assertEquals(1, r.exit(), String.join(" ", command) + ": " + r);
      assertEquals("", r.out(), r.toString());
      assertTrue(r.err().startsWith("futureq: ") && r.err().contains(server), r.toString());
      assertEquals(1, r.err().lines().count(), r.toString());
    }
  }

  @Test
  void everyCommandHasHelp() {
    for (String command : new String[] {"publish", "consume", "cancel", "stats", "cluster"}) {
      Cli.Result r = Cli.run(command, "--help");
      assertEquals(0, r.exit(), r.toString());
      assertTrue(r.out().startsWith("Usage: futureq " + command), r.toString());
      assertTrue(r.out().contains("--server=HOST:PORT"), r.toString());
    }
  }

  private static void assertUsageError(Cli.Result r, String flag) {
    assertEquals(2, r.exit(), r.toString());
    assertEquals("", r.out(), r.toString());
    assertTrue(r.err().lines().findFirst().orElse("").contains(flag), "first error line should name " + flag
        + ":\n" + r);
    assertEquals(2, r.err().lines().count(), "one line and a hint:\n" + r);
    assertTrue(r.err().lines().toList().get(1).matches("(Did you mean .*\\? )?Try 'futureq [a-z ]+ --help' for the "
        + "options\\."), r.toString());
  }
}
