package io.futureq.cli;

import ch.qos.logback.classic.Level;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code futureq} command line; each subcommand is its own class. */
@Command(name = "futureq", mixinStandardHelpOptions = true, version = "futureq 0.1.0",
    description = "FutureQ, a durable delayed-message broker.",
    subcommands = {ServerCommand.class, PublishCommand.class, ConsumeCommand.class, CancelCommand.class,
        PeekCommand.class, GetCommand.class, RescheduleCommand.class, StatsCommand.class, GroupCommand.class,
        TopicCommand.class, ClusterCommand.class, BenchCommand.class})
public final class FutureqCommand implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    // Logging starts here, before client threads race to it, so SLF4J prints no "intercepted calls" warnings.
    // The broker commands report failures themselves, one line each: the client library's log would repeat them.
    if (LoggerFactory.getLogger("io.futureq.client") instanceof ch.qos.logback.classic.Logger client) {
      client.setLevel(Level.OFF);
    }
    System.exit(new CommandLine(new FutureqCommand()).execute(args));
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "a subcommand is required");
  }
}
