package io.futureq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.e2e.TestBroker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code --token} (and {@code FUTUREQ_TOKEN}) against a broker with authentication on; {@code token new}. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TokenOptionCommandTest {
  @Test
  void aTokenMadeByTokenNewLetsCommandsIn(@TempDir Path dir) throws Exception {
    Cli.Result made = Cli.run("token", "new", "ops");
    assertEquals(0, made.exit(), made.toString());
    String token = made.lines().get(0);
    String entry = made.lines().get(1);
    assertTrue(entry.matches("token ops sha256:[0-9a-f]{64}"), entry);
    Path access = Files.writeString(dir.resolve("access"), entry + "\ngrant ops produce *\ngrant ops admin *\n");
    try (TestBroker broker = TestBroker.start(dir.resolve("data"), Map.of("futureq.security.auth.enabled", true,
        "futureq.security.auth.access-file", access.toString()))) {
      String server = "127.0.0.1:" + broker.node.grpcPort();
      Cli.Result published = Cli.run("publish", "--server", server, "--token", token, "--topic", "t", "hi");
      assertEquals(0, published.exit(), published.toString());
      Cli.Result stats = Cli.run("stats", "--server", server, "--token", token, "--topic", "t", "--json");
      assertEquals(0, stats.exit(), stats.toString());
      assertTrue(stats.out().contains("\"pending\":1"), stats.out());

      Cli.Result without = Cli.run("stats", "--server", server, "--topic", "t");
      assertEquals(1, without.exit(), without.toString());
      assertTrue(without.err().contains("UNAUTHENTICATED: missing or invalid credentials"), without.err());
      Cli.Result consume = Cli.run("consume", "--server", server, "--token", token, "--topic", "t", "--group", "g",
          "--count", "1");
      assertEquals(1, consume.exit(), consume.toString());
      assertTrue(consume.err().contains("lacks permission 'consume' on topic 't'"), consume.err());
    }
  }

  /** Every command that takes --server takes --token too, defaulting to $FUTUREQ_TOKEN. */
  @Test
  void everyCommandThatConnectsTakesATokenFromTheFlagOrTheEnvironment() {
    List<String> connecting = new ArrayList<>();
    walk(FutureqCommand.commandLine(), connecting);
    assertTrue(connecting.size() >= 14, connecting.toString());
  }

  private static void walk(CommandLine command, List<String> connecting) {
    if (command.getCommandSpec().findOption("--server") != null) {
      CommandLine.Model.OptionSpec token = command.getCommandSpec().findOption("--token");
      assertNotNull(token, command.getCommandName() + " connects but has no --token");
      // The default is ${env:FUTUREQ_TOKEN}, resolved when parsing (unset here, so null); --help names it.
      assertTrue(String.join(" ", token.description()).contains("$FUTUREQ_TOKEN"), command.getCommandName());
      connecting.add(command.getCommandName());
    }
    command.getSubcommands().values().forEach(sub -> walk(sub, connecting));
  }
}
