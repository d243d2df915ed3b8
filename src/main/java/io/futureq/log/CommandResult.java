package io.futureq.log;

import io.futureq.log.proto.StoredMessage;
import java.util.List;
import java.util.Set;

/** What applying one log command did. */
public sealed interface CommandResult {

  /** A message that is now stored (or was already stored under the same key). */
  record StoredRef(byte[] storageKey, StoredMessage message, boolean duplicate) {}

  /** A StoreBatch: one ref per message, in request order. */
  record Stored(List<StoredRef> messages, Set<String> newlyPending) implements CommandResult {
    /**
     * @param newlyPending topics that had nothing pending before this command stored on them: their entity may run
     *     nowhere, so the cluster wakes it (known on the applying replica only; the codec leaves it empty)
     */
    public Stored {
      messages = List.copyOf(messages);
      newlyPending = Set.copyOf(newlyPending);
    }

    public Stored(List<StoredRef> messages) {
      this(messages, Set.of());
    }
  }

  /** Messages removed from a topic (acked by everyone, cancelled, expired or dead-lettered). */
  record Removed(String topic, List<byte[]> storageKeys, Reason reason) implements CommandResult {
    public Removed {
      storageKeys = List.copyOf(storageKeys);
    }
  }

  /** A cancel applied at {@code logIndex}: the removed message, or none. */
  record Cancelled(String topic, byte[] storageKey, StoredMessage message, long logIndex) implements CommandResult {
    public boolean existed() {
      return storageKey != null;
    }
  }

  /**
   * A group is registered (created now, or already known) at {@code logIndex}: a group starting on a
   * replica waits until that replica has applied it, so it never reads state older than its start.
   */
  record GroupCreated(String topic, String group, boolean existed, long logIndex) implements CommandResult {}

  /**
   * A message moved to the dead-letter topic; {@code copy} is the new message, null if it was gone or
   * the group had already acked or dead-lettered it.
   */
  record DeadLettered(String topic, String group, StoredRef copy) implements CommandResult {}

  /**
   * A JournalWrite: how many Pekko Persistence events it stored, and the log index it was applied at (the same on
   * every replica), so a reader can wait until its own replica has applied it.
   */
  record JournalWritten(int events, long logIndex) implements CommandResult {}

  /**
   * A JournalDelete: {@code deletedTo} is the persistence id's deleted-to mark afterwards, {@code removed} the
   * number of events it removed, {@code logIndex} the log index it was applied at.
   */
  record JournalDeleted(String persistenceId, long deletedTo, int removed, long logIndex) implements CommandResult {}

  /** A DeleteGroup: {@code removed} are the messages no other group still held. */
  record GroupDeleted(String topic, String group, boolean existed, List<byte[]> removed) implements CommandResult {
    public GroupDeleted {
      removed = List.copyOf(removed);
    }
  }

  /**
   * A PurgeTopic chunk. {@code more}: messages stored before {@code beforeEventId} may be left (append another
   * chunk naming that bound). {@code topicDeleted}: the topic is gone, with {@code deletedGroups}.
   */
  record Purged(String topic, boolean existed, List<byte[]> removed, boolean more, long beforeEventId,
      boolean topicDeleted, List<String> deletedGroups) implements CommandResult {
    public Purged {
      removed = List.copyOf(removed);
      deletedGroups = List.copyOf(deletedGroups);
    }
  }

  /**
   * A Reschedule: the message left {@code from} for {@code moved}; both null when no pending message matched.
   * {@code ackedBy}: groups that had acked it already.
   */
  record Rescheduled(String topic, byte[] from, StoredRef moved, List<String> ackedBy) implements CommandResult {
    public Rescheduled {
      ackedBy = List.copyOf(ackedBy);
    }

    public boolean existed() {
      return from != null;
    }
  }
  /** A NackDelay: {@code marked} of its messages were still stored and got the group's mark. */
  record NackDelayed(String topic, String group, int marked) implements CommandResult {}

  /**
   * A leader entry: its commands' {@code results} in order; or, {@code fenced}, nothing of it was applied (its
   * leader wrote in another Raft term than the log entry's) and {@code results} is empty, the same on every replica.
   */
  record LeaderEntryApplied(boolean fenced, List<CommandResult> results) implements CommandResult {
    public LeaderEntryApplied {
      results = List.copyOf(results);
    }
  }

  /** Why messages were removed. */
  enum Reason { ACKED, EXPIRED, CANCELLED, DEAD_LETTERED }
}
