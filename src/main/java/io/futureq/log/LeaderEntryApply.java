package io.futureq.log;

import io.futureq.log.proto.LeaderEntry;
import io.futureq.log.proto.LogCommand;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * How {@link BrokerStateMachine} applies the write leader's entries: fenced by sequence number. An entry is applied
 * only if it is the successor of the last applied one; a stale leader (paused, partitioned, or replaced) continues
 * from a number someone else used already, and none of its entry is applied. The decision reads only replicated
 * state, so every replica makes it the same way.
 */
final class LeaderEntryApply {
  private LeaderEntryApply() {}

  /**
   * @param appliedSequenceNr the sequence number of the last leader entry applied
   * @param command applies one command of the entry
   */
  static CommandResult.LeaderEntryApplied apply(LeaderEntry entry, long appliedSequenceNr,
      Function<LogCommand, CommandResult> command) {
    if (entry.getSequenceNr() != appliedSequenceNr + 1) {
      return new CommandResult.LeaderEntryApplied(entry.getSequenceNr(), true, appliedSequenceNr, List.of());
    }
    List<CommandResult> results = new ArrayList<>(entry.getCommandsCount());
    for (LogCommand c : entry.getCommandsList()) {
      results.add(command.apply(c));
    }
    return new CommandResult.LeaderEntryApplied(entry.getSequenceNr(), false, entry.getSequenceNr(), results);
  }
}
