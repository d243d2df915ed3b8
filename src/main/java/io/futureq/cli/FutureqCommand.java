package io.futureq.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code futureq} command line; each subcommand is its own class. */
@Command(name = "futureq", mixinStandardHelpOptions = true, version = "futureq 0.1.0",
    description = "FutureQ, a durable delayed-message broker.",
    subcommands = {ServerCommand.class, PublishCommand.class, ConsumeCommand.class, CancelCommand.class,
        StatsCommand.class, ClusterCommand.class})
public final class FutureqCommand implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(new CommandLine(new FutureqCommand()).execute(args));
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "a subcommand is required");
  }
}
