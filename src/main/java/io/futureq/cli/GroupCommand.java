package io.futureq.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code futureq group}: administration of durable consumer groups. */
@Command(name = "group", mixinStandardHelpOptions = true, subcommands = GroupDeleteCommand.class,
    description = "Administer a topic's durable consumer groups.")
final class GroupCommand implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "a subcommand is required (delete)");
  }
}
