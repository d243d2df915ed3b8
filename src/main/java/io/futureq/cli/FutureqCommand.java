package io.futureq.cli;

import ch.qos.logback.classic.Level;
import io.futureq.app.CommonPool;
import java.io.PrintWriter;
import java.util.List;
import org.slf4j.LoggerFactory;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code futureq} command line; each subcommand is its own class. */
@Command(name = "futureq", mixinStandardHelpOptions = true, version = "futureq 0.1.0",
    description = "FutureQ, a durable delayed-message broker.",
    subcommands = {ServerCommand.class, PublishCommand.class, ConsumeCommand.class, CancelCommand.class,
        PeekCommand.class, GetCommand.class, RescheduleCommand.class, StatsCommand.class, GroupCommand.class,
        TopicCommand.class, ClusterCommand.class, BenchCommand.class, TokenCommand.class,
        AutoComplete.GenerateCompletion.class})
public final class FutureqCommand implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    CommonPool.size();
    // Logging starts here, before client threads race to it, so SLF4J prints no "intercepted calls" warnings.
    // The broker commands report failures themselves, one line each: the client library's log would repeat them.
    if (LoggerFactory.getLogger("io.futureq.client") instanceof ch.qos.logback.classic.Logger client) {
      client.setLevel(Level.OFF);
    }
    System.exit(commandLine().execute(args));
  }

  /**
   * The command line with FutureQ's handling of bad arguments: one line naming the problem and one with where
   * to look, instead of picocli's default of the whole usage text.
   */
  public static CommandLine commandLine() {
    return new CommandLine(new FutureqCommand()).setParameterExceptionHandler(FutureqCommand::badArguments);
  }

  private static int badArguments(CommandLine.ParameterException e, String[] args) {
    CommandLine command = e.getCommandLine();
    PrintWriter err = command.getErr();
    err.println("futureq: " + e.getMessage());
    List<String> suggestions = e instanceof CommandLine.UnmatchedArgumentException u ? u.getSuggestions() : List.of();
    err.println((suggestions.isEmpty() ? "" : "Did you mean " + String.join(" or ", suggestions) + "? ")
        + "Try '" + command.getCommandSpec().qualifiedName() + " --help' for the options.");
    err.flush();
    return command.getCommandSpec().exitCodeOnInvalidInput();
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "a subcommand is required");
  }
}
