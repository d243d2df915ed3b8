package io.futureq.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Every command's first description line is a whole sentence: {@code --help}'s list of commands shows it alone, and
 * so does the man page's NAME line (the build's ManPageGenerator), where a sentence cut at a line break reads as
 * "... messages only it still held are deleted,".
 */
class CommandSummaryTest {
  @Test
  void everyCommandsFirstDescriptionLineIsAWholeSentence() {
    List<CommandLine> commands = new ArrayList<>();
    collect(FutureqCommand.commandLine(), commands);
    assertTrue(commands.size() > 20, "the walk found " + commands.size() + " commands");
    for (CommandLine command : commands) {
      String name = command.getCommandSpec().qualifiedName();
      String[] description = command.getCommandSpec().usageMessage().description();
      assertTrue(description.length > 0, name + " has no description");
      String first = description[0].strip();
      assertFalse(first.isEmpty(), name + "'s first description line is empty");
      assertTrue(first.endsWith("."), name + "'s first description line is not a whole sentence: " + first);
    }
  }

  private static void collect(CommandLine command, List<CommandLine> into) {
    into.add(command);
    command.getSubcommands().values().forEach(sub -> collect(sub, into));
  }
}
