package io.futureq.log;

import io.futureq.log.proto.LeaderEntry;
import io.futureq.log.proto.LogCommand;
import io.futureq.storage.OrderedStore.Space;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * How {@link BrokerStateMachine} applies the write leader's entries: fenced by sequence number. An entry is applied
 * only if it is the successor of the last applied one; a stale leader (paused, partitioned, or replaced) continues
 * from a number someone else used already, and none of its entry is applied. An entry whose writer's write was
 * applied before (the writer sent it again to a new leader) takes its number but applies nothing. The decisions
 * read only replicated state, so every replica makes them the same way.
 */
final class LeaderEntryApply {
  private LeaderEntryApply() {}

  /** Where the highest write id applied of each writer is kept (META). */
  static byte[] writerKey(String writer) {
    return ("leader-writer/" + writer).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * @param appliedSequenceNr the sequence number of the last leader entry applied
   * @param ctx where the entry's writer's highest applied write id is read and written
   * @param command applies one command of the entry
   */
  static CommandResult.LeaderEntryApplied apply(LeaderEntry entry, long appliedSequenceNr, ApplyContext ctx,
      Function<LogCommand, CommandResult> command) {
    if (entry.getSequenceNr() != appliedSequenceNr + 1) {
      return new CommandResult.LeaderEntryApplied(entry.getSequenceNr(), true, appliedSequenceNr, List.of());
    }
    if (!entry.getWriter().isEmpty()) {
      byte[] key = writerKey(entry.getWriter());
      byte[] highest = ctx.get(Space.META, key);
      if (highest != null && entry.getWriteId() <= ByteBuffer.wrap(highest).getLong()) {
        return new CommandResult.LeaderEntryApplied(entry.getSequenceNr(), false, entry.getSequenceNr(), List.of(),
            true);
      }
      ctx.put(Space.META, key, ByteBuffer.allocate(Long.BYTES).putLong(entry.getWriteId()).array());
    }
    List<CommandResult> results = new ArrayList<>(entry.getCommandsCount());
    for (LogCommand c : entry.getCommandsList()) {
      results.add(command.apply(c));
    }
    return new CommandResult.LeaderEntryApplied(entry.getSequenceNr(), false, entry.getSequenceNr(), results);
  }
}
