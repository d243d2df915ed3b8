package io.futureq.log;

import io.futureq.log.proto.LeaderEntry;
import io.futureq.log.proto.LogCommand;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * How {@link BrokerStateMachine} applies the write leader's entries, fenced by Raft's term: an entry is applied only
 * if its leader wrote in the term of the log entry that holds it. A Raft leader appends only in its current term, so
 * a write leader of an earlier term whose entry still reaches the log (its replica led again, in a later term, while
 * it wrote on) gets nothing applied; and a log entry is applied at most once, in log order, so nothing is applied
 * twice. The decision reads only the entry and its log term, so every replica makes it the same way.
 */
final class LeaderEntryApply {
  private LeaderEntryApply() {}

  /**
   * @param logTerm the term of the log entry holding {@code entry}
   * @param command applies one command of the entry
   */
  static CommandResult.LeaderEntryApplied apply(LeaderEntry entry, long logTerm, Function<LogCommand, CommandResult>
      command) {
    if (entry.getTerm() != logTerm) {
      return new CommandResult.LeaderEntryApplied(true, List.of());
    }
    List<CommandResult> results = new ArrayList<>(entry.getCommandsCount());
    for (LogCommand c : entry.getCommandsList()) {
      results.add(command.apply(c));
    }
    return new CommandResult.LeaderEntryApplied(false, results);
  }
}
