package io.futureq.log;

import io.futureq.log.proto.LogCommand;
import io.futureq.log.proto.NewMessage;
import io.futureq.storage.StorageKeys;
import java.util.List;

/**
 * How a stored message's event id follows from where it is in the log: the index of its entry, and its slot, its
 * place among the entry's new messages (every message of every store command, in order, whether it is then stored,
 * found a duplicate or fenced with its leader entry). So ids depend on the entry alone, not on the store, and the
 * leader can tell a producer its ids once the entry is in its own log, before the entry is applied
 * ({@code ACK_LEVEL_LEADER}). They grow with the log, as the ids of earlier versions (a counter of stored
 * messages, which never passed an entry's index times its largest slot count) did.
 */
public final class EventIds {
  /** Bits of the slot; the index has the other 40. */
  public static final int SLOT_BITS = 24;
  /** Most new messages one entry may carry. */
  public static final int MAX_SLOTS = 1 << SLOT_BITS;

  private EventIds() {}

  /** The event id of the message in {@code slot} of entry {@code index}. */
  public static long of(long index, int slot) {
    if (slot < 0 || slot >= MAX_SLOTS) {
      throw new IllegalArgumentException("a log entry carries at most " + MAX_SLOTS + " new messages");
    }
    return (index << SLOT_BITS) | slot;
  }

  /**
   * The storage key of new message {@code m} under {@code eventId}: the one derivation both the apply and the
   * {@code ACK_LEVEL_LEADER} answer (which names the ids before the apply) use.
   */
  public static byte[] storageKey(NewMessage m, long bucketMs, long eventId) {
    return storageKey(StorageKeys.topicHash(m.getTopic()), m, bucketMs, eventId);
  }

  /** As {@link #storageKey(NewMessage, long, long)}, with the hash of the message's topic already known. */
  public static byte[] storageKey(long topicHash, NewMessage m, long bucketMs, long eventId) {
    return StorageKeys.message(topicHash, m.getDueMs() / bucketMs, eventId);
  }

  /** How many slots {@code commands} take together. */
  public static int slotsOf(List<LogCommand> commands) {
    int slots = 0;
    for (LogCommand command : commands) {
      slots += slotsOf(command);
    }
    return slots;
  }

  /** How many slots {@code command} takes: its new messages, also those inside a leader entry. */
  public static int slotsOf(LogCommand command) {
    switch (command.getCommandCase()) {
      case STORE:
        return command.getStore().getMessagesCount();
      case LEADER_ENTRY:
        return slotsOf(command.getLeaderEntry().getCommandsList());
      default:
        return 0;
    }
  }
}
