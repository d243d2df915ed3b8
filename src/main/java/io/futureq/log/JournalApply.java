package io.futureq.log;

import io.futureq.log.proto.JournalDelete;
import io.futureq.log.proto.JournalEvent;
import io.futureq.log.proto.JournalWrite;
import io.futureq.storage.OrderedStore.Space;
import io.futureq.storage.StorageKeys;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * How {@link BrokerStateMachine} applies the Pekko Persistence journal's commands: deterministic, like every other
 * command. Events live in the INDEX space under {@link StorageKeys#journalEvent}; each persistence id keeps its
 * highest sequence number and its deleted-to mark beside them.
 */
final class JournalApply {
  private JournalApply() {}

  static CommandResult write(ApplyContext ctx, long index, JournalWrite write) {
    for (JournalEvent event : write.getEventsList()) {
      String id = event.getPersistenceId();
      ctx.put(Space.INDEX, StorageKeys.journalEvent(id, event.getSequenceNr()), event.getPayload().toByteArray());
      byte[] highestKey = StorageKeys.journalHighest(id);
      if (event.getSequenceNr() > readLong(ctx, highestKey)) {
        ctx.put(Space.INDEX, highestKey, longBytes(event.getSequenceNr()));
      }
    }
    return new CommandResult.JournalWritten(write.getEventsCount(), index);
  }

  /** Removes events up to {@code min(to, highest)}; the highest sequence number is never lowered. */
  static CommandResult delete(ApplyContext ctx, long index, JournalDelete delete) {
    String id = delete.getPersistenceId();
    byte[] markKey = StorageKeys.journalDeletedTo(id);
    long mark = readLong(ctx, markKey);
    long to = Math.min(delete.getToSequenceNr(), readLong(ctx, StorageKeys.journalHighest(id)));
    if (to <= mark) {
      return new CommandResult.JournalDeleted(id, mark, 0, index);
    }
    byte[] end = to == Long.MAX_VALUE ? StorageKeys.prefixEnd(StorageKeys.journalEventPrefix(id))
        : StorageKeys.journalEvent(id, to + 1);
    List<byte[]> keys = ctx.keysInRange(Space.INDEX, StorageKeys.journalEvent(id, mark + 1), end);
    keys.forEach(key -> ctx.delete(Space.INDEX, key));
    ctx.put(Space.INDEX, markKey, longBytes(to));
    return new CommandResult.JournalDeleted(id, to, keys.size(), index);
  }

  private static long readLong(ApplyContext ctx, byte[] key) {
    byte[] value = ctx.get(Space.INDEX, key);
    return value == null ? 0 : ByteBuffer.wrap(value).getLong();
  }

  private static byte[] longBytes(long value) {
    return ByteBuffer.allocate(8).putLong(value).array();
  }
}
