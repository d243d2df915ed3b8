package io.futureq.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code futureq topic}: purging and deleting topics. */
@Command(name = "topic", mixinStandardHelpOptions = true, subcommands = {TopicPurgeCommand.class,
    TopicDeleteCommand.class}, description = "Purge or delete a topic.")
final class TopicCommand implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "a subcommand is required (purge, delete)");
  }
}
