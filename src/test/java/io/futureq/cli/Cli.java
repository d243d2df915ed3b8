package io.futureq.cli;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import picocli.CommandLine;

/** Runs the {@code futureq} command line in-process, capturing what it writes. */
final class Cli {
  private static final Duration LIMIT = Duration.ofSeconds(60);

  record Result(int exit, String out, String err) {
    List<String> lines() {
      return out.isEmpty() ? List.of() : Arrays.asList(out.split("\n"));
    }

    @Override
    public String toString() {
      return "exit " + exit + "\n--- out:\n" + out + "--- err:\n" + err;
    }
  }

  private Cli() {}

  /** Runs with an empty standard input, so a test never waits on the real one. */
  static Result run(String... args) {
    return runWithInput("", args);
  }

  /** Runs with {@code stdin} (text, UTF-8) as publish's standard input. */
  static Result runWithInput(String stdin, String... args) {
    return run(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)), args);
  }

  /** Runs with {@code stdin} as publish's standard input. */
  static Result run(InputStream stdin, String... args) {
    CommandLine cli = FutureqCommand.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    ((PublishCommand) cli.getSubcommands().get("publish").getCommand()).in = stdin;
    // A command that hangs fails its test instead of the whole run (a @BeforeAll has no @Timeout).
    int exit = assertTimeoutPreemptively(LIMIT, () -> cli.execute(args), () -> String.join(" ", args) + "\n" + err);
    return new Result(exit, out.toString(), err.toString());
  }
}
