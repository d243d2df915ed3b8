package io.futureq.log;

import io.futureq.log.proto.StoredMessage;
import java.util.List;

/** What applying one log command did. */
public sealed interface CommandResult {

  /** A message that is now stored (or was already stored under the same key). */
  record StoredRef(byte[] storageKey, StoredMessage message, boolean duplicate) {}

  /** A StoreBatch: one ref per message, in request order. */
  record Stored(List<StoredRef> messages) implements CommandResult {
    public Stored {
      messages = List.copyOf(messages);
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
   * A leader entry, as {@code verdict} says. Applied: {@code results} are its commands' results in order. Otherwise
   * nothing of it was applied and {@code results} is empty, the same on every replica: see {@link Verdict}.
   * {@code appliedSequenceNr} is the sequence number of the last leader entry applied once this one was decided.
   */
  record LeaderEntryApplied(long sequenceNr, Verdict verdict, long appliedSequenceNr, List<CommandResult> results)
      implements CommandResult {
    public LeaderEntryApplied {
      results = List.copyOf(results);
    }

    public boolean fenced() {
      return verdict == Verdict.FENCED;
    }

    public boolean alreadyApplied() {
      return verdict == Verdict.ALREADY_APPLIED;
    }

    public boolean outOfOrder() {
      return verdict == Verdict.OUT_OF_ORDER;
    }
  }

  /** What the state machine decided about a leader entry. */
  enum Verdict {
    /** Its commands were applied. */
    APPLIED,
    /**
     * Its sequence number was not {@code appliedSequenceNr + 1}: a stale leader wrote it, or an earlier entry of its
     * leader was not applied. Its number is not used.
     */
    FENCED,
    /** Its writer's write was applied before (sent again to another leader): not applied again; its number is used. */
    ALREADY_APPLIED,
    /**
     * Its writer's write does not follow the last one applied of that writer (an earlier one was fenced or lost on
     * the way): not applied, so that what applies of a writer stays a gap-free prefix of its writes; sending it again
     * after the missing ones is safe. Its number is used.
     */
    OUT_OF_ORDER
  }

  /** Why messages were removed. */
  enum Reason { ACKED, EXPIRED, CANCELLED, DEAD_LETTERED }
}
