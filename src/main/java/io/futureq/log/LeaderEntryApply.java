package io.futureq.log;

import io.futureq.log.CommandResult.Verdict;
import io.futureq.log.proto.LeaderEntry;
import io.futureq.log.proto.LogCommand;
import io.futureq.storage.OrderedStore.Space;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * How {@link BrokerStateMachine} applies the write leader's entries. Fenced by sequence number: an entry is applied
 * only if it is the successor of the last applied one; a stale leader (paused, partitioned, or replaced) continues
 * from a number someone else used already, and none of its entry is applied. Then ordered per writer: a writer's
 * write applies only if it is the one after the writer's last applied write. With several writes of a writer in
 * flight (through one leader's pipeline, or sent again to the next leader), one refused on the way would otherwise
 * let later ones apply and make its own resend look applied; so a write at or below the last applied one is
 * already applied, and one beyond its successor is refused and goes again. The decisions read only replicated
 * state, so every replica makes them the same way.
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
    long sequenceNr = entry.getSequenceNr();
    if (sequenceNr != appliedSequenceNr + 1) {
      return new CommandResult.LeaderEntryApplied(sequenceNr, Verdict.FENCED, appliedSequenceNr, List.of());
    }
    if (!entry.getWriter().isEmpty()) {
      byte[] key = writerKey(entry.getWriter());
      byte[] highest = ctx.get(Space.META, key);
      // Before a writer's first write, the last applied is the one before its first id.
      long lastApplied = highest == null ? entry.getFirstWriteId() - 1 : ByteBuffer.wrap(highest).getLong();
      if (entry.getWriteId() <= lastApplied) {
        return new CommandResult.LeaderEntryApplied(sequenceNr, Verdict.ALREADY_APPLIED, sequenceNr, List.of());
      }
      if (entry.getWriteId() != lastApplied + 1) {
        return new CommandResult.LeaderEntryApplied(sequenceNr, Verdict.OUT_OF_ORDER, sequenceNr, List.of());
      }
      ctx.put(Space.META, key, ByteBuffer.allocate(Long.BYTES).putLong(entry.getWriteId()).array());
    }
    List<CommandResult> results = new ArrayList<>(entry.getCommandsCount());
    for (LogCommand c : entry.getCommandsList()) {
      results.add(command.apply(c));
    }
    return new CommandResult.LeaderEntryApplied(sequenceNr, Verdict.APPLIED, sequenceNr, results);
  }
}
