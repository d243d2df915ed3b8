package io.futureq.log;

import io.futureq.log.CommandResult.Reason;
import io.futureq.log.CommandResult.StoredRef;
import io.futureq.log.proto.CancelMessage;
import io.futureq.log.proto.CreateGroup;
import io.futureq.log.proto.DeadLetter;
import io.futureq.log.proto.DeleteBatch;
import io.futureq.log.proto.ExpireMessages;
import io.futureq.log.proto.GroupAck;
import io.futureq.log.proto.LeaderEntry;
import io.futureq.log.proto.LogCommand;
import io.futureq.log.proto.NewMessage;
import io.futureq.log.proto.StoreBatch;
import io.futureq.log.proto.StoredMessage;
import io.futureq.storage.OrderedStore;
import io.futureq.storage.OrderedStore.Space;
import io.futureq.storage.StorageKeys;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The sole writer of durable state: turns log entries into storage batches.
 *
 * <p>Contract: {@link #prepare} is deterministic (same store state and entry, same writes and
 * results), so every replica that applies the same log converges. It must be called by one thread
 * at a time, in log order. The prepared batch carries the applied index, so data and index commit
 * together. After the caller commits the batch it must call {@link #committed}; if the commit fails
 * it calls {@link #abandoned} instead and nothing of it is visible, in storage or in memory. A
 * {@link #prepare} that throws leaves nothing behind either.
 */
public final class BrokerStateMachine {
  /** Appended to a topic's name to name its dead-letter topic, whatever the topic's length. */
  public static final String DEAD_LETTER_SUFFIX = ".dead-letter";
  /** The term of every log entry standalone, where there is one leader for ever. */
  public static final long STANDALONE_TERM = 1;
  private static final byte[] APPLIED_INDEX = "applied-index".getBytes(StandardCharsets.UTF_8);
  private static final byte[] NEXT_EVENT_ID = "next-event-id".getBytes(StandardCharsets.UTF_8);
  private static final byte[] BUCKET_MS = "bucket-ms".getBytes(StandardCharsets.UTF_8);

  private final OrderedStore store;
  private final long bucketMs;
  private final TopicBook book;
  private final SharedBucketSize sharedBucket;
  private long appliedIndex;
  private long nextEventId;

  /**
   * @throws IllegalStateException if the store was written with another bucket size: keys would no
   *     longer sort in due order
   */
  public BrokerStateMachine(OrderedStore store, long bucketMs) {
    this.store = store;
    this.bucketMs = bucketMs;
    this.book = new TopicBook(store);
    this.sharedBucket = new SharedBucketSize(bucketMs);
    long stored = readLong(BUCKET_MS, -1);
    if (stored == -1) {
      try (OrderedStore.Batch batch = store.newBatch()) {
        batch.put(Space.META, BUCKET_MS, longBytes(bucketMs));
        store.commit(batch, true);
      }
    } else if (stored != bucketMs) {
      throw new IllegalStateException("futureq.topic.bucket-size is " + bucketMs + "ms but the data directory was "
          + "written with " + stored + "ms; it cannot change for an existing directory");
    }
    this.appliedIndex = readLong(APPLIED_INDEX, 0);
    this.nextEventId = readLong(NEXT_EVENT_ID, 1);
  }

  /**
   * Forgets everything cached and reads it again from the store, after the store's whole content
   * was replaced (a Raft follower installing its leader's snapshot). Same threading as {@link #prepare}.
   *
   * @throws IllegalStateException if the new content was written with another bucket size
   */
  public void reload() {
    long stored = readLong(BUCKET_MS, bucketMs);
    if (stored != bucketMs) {
      throw new IllegalStateException("the restored store was written with futureq.topic.bucket-size " + stored
          + "ms but this node uses " + bucketMs + "ms");
    }
    book.forget();
    sharedBucket.forget();
    appliedIndex = readLong(APPLIED_INDEX, 0);
    nextEventId = readLong(NEXT_EVENT_ID, 1);
  }

  public long appliedIndex() {
    return appliedIndex;
  }

  /** The applied index a snapshot of the store reflects. */
  public static long appliedIndexIn(OrderedStore.View view) {
    byte[] value = view.get(Space.META, APPLIED_INDEX);
    return value == null ? 0 : ByteBuffer.wrap(value).getLong();
  }

  public long bucketMs() {
    return bucketMs;
  }

  /** The entry's writes and results, ready to commit. */
  public final class Prepared implements AutoCloseable {
    private final long index;
    private final ApplyContext ctx;
    private final List<CommandResult> results;
    private final long nextEventIdAfter;

    private Prepared(long index, ApplyContext ctx, List<CommandResult> results, long nextEventIdAfter) {
      this.index = index;
      this.ctx = ctx;
      this.results = results;
      this.nextEventIdAfter = nextEventIdAfter;
    }

    public OrderedStore.Batch batch() {
      return ctx.batch();
    }

    public List<CommandResult> results() {
      return results;
    }

    public long index() {
      return index;
    }

    @Override
    public void close() {
      ctx.close();
    }
  }

  /**
   * Computes the writes of log entry {@code index} of the standalone log (every entry of term
   * {@link #STANDALONE_TERM}); see the class contract.
   *
   * @throws IllegalArgumentException if a command has no body this version knows; then, as after a
   *     failed read, nothing of the entry stays, in storage or in the cached bookkeeping
   */
  public Prepared prepare(long index, List<LogCommand> commands) {
    return prepare(index, STANDALONE_TERM, commands);
  }

  /** As {@link #prepare(long, List)}, for an entry of Raft term {@code term}. */
  public Prepared prepare(long index, long term, List<LogCommand> commands) {
    ApplyContext ctx = new ApplyContext(store, EventIds.slotsOf(commands));
    try {
      Apply apply = new Apply(ctx, index, term, nextEventId);
      List<CommandResult> results = new ArrayList<>(commands.size());
      for (LogCommand command : commands) {
        results.add(apply.command(command));
      }
      sharedBucket.verify(ctx, index);
      book.writeTouched(ctx);
      ctx.put(Space.META, APPLIED_INDEX, longBytes(index));
      ctx.put(Space.META, NEXT_EVENT_ID, longBytes(apply.nextEventId));
      return new Prepared(index, ctx, results, apply.nextEventId);
    } catch (RuntimeException | Error e) {
      book.dropTouched();
      sharedBucket.abandoned();
      ctx.close();
      throw e;
    }
  }

  /** Makes a committed entry's in-memory effects current; see the class contract. */
  public void committed(Prepared prepared) {
    appliedIndex = prepared.index;
    nextEventId = prepared.nextEventIdAfter;
    book.commitTouched();
    sharedBucket.committed();
    prepared.close();
  }

  /** Forgets a prepared entry whose commit failed. */
  public void abandoned(Prepared prepared) {
    book.dropTouched();
    sharedBucket.abandoned();
    prepared.close();
  }

  /** Pending count of {@code topic} as last committed (0 for an unknown topic); safe from any thread. */
  public long pending(String topic) {
    return Math.max(0, book.committedPendingOrMinusOne(topic));
  }

  /** Whether {@code topic} has ever stored a message or a group; safe from any thread. */
  public boolean knowsTopic(String topic) {
    return book.committedPendingOrMinusOne(topic) >= 0;
  }

  /** Topics known, as last committed; safe from any thread. */
  public int topicCount() {
    return book.topicCount();
  }

  private final class Apply {
    private final ApplyContext ctx;
    private final StoredMessages messages;
    private final long index;
    /** The Raft term of the log entry: a leader entry of another term is fenced. */
    private final long term;
    /** One past the highest event id assigned: where a purge of "everything stored so far" ends. */
    private long nextEventId;
    /** The slot of the next new message, and of the next command's first one; see {@link EventIds}. */
    private int slot;
    private int nextCommandSlot;

    Apply(ApplyContext ctx, long index, long term, long nextEventId) {
      this.ctx = ctx;
      this.messages = new StoredMessages(ctx, book);
      this.index = index;
      this.term = term;
      this.nextEventId = nextEventId;
    }

    /** Applies one command of the entry; its new messages take the slots after the commands before it. */
    CommandResult command(LogCommand command) {
      int first = nextCommandSlot;
      nextCommandSlot += EventIds.slotsOf(command);
      slot = first; // a fenced leader entry takes its slots too: ids depend on the entry alone
      if (command.getCommandCase() == LogCommand.CommandCase.LEADER_ENTRY) {
        return leaderEntry(command.getLeaderEntry());
      }
      return plainCommand(command);
    }

    private CommandResult leaderEntry(LeaderEntry entry) {
      return LeaderEntryApply.apply(entry, term, this::plainCommand);
    }

    private CommandResult plainCommand(LogCommand command) {
      switch (command.getCommandCase()) {
        case STORE: return store(command.getStore());
        case DELETE: return delete(command.getDelete());
        case CANCEL: return cancel(command.getCancel());
        case CREATE_GROUP: return createGroup(command.getCreateGroup());
        case EXPIRE: return expire(command.getExpire());
        case DEAD_LETTER: return deadLetter(command.getDeadLetter());
        case JOURNAL_WRITE: return JournalApply.write(ctx, index, command.getJournalWrite());
        case JOURNAL_DELETE: return JournalApply.delete(ctx, index, command.getJournalDelete());
        case DELETE_GROUP: return GroupDeleteApply.apply(messages, command.getDeleteGroup());
        case PURGE_TOPIC: return PurgeApply.apply(messages, command.getPurgeTopic(), nextEventId);
        case RESCHEDULE: return RescheduleApply.apply(messages, bucketMs, command.getReschedule());
        case NACK_DELAY: return NackDelayApply.apply(ctx, command.getNackDelay());
        case LEADER_ENTRY: throw new IllegalArgumentException("a leader entry inside a leader entry: " + command);
        default: throw new IllegalArgumentException("log command without a body: " + command);
      }
    }

    private CommandResult.Stored store(StoreBatch batch) {
      sharedBucket.admit(ctx, batch);
      List<StoredRef> refs = new ArrayList<>(batch.getMessagesCount());
      Set<String> newlyPending = new HashSet<>();
      String lastTopic = null;
      for (NewMessage m : batch.getMessagesList()) {
        if (!m.getTopic().equals(lastTopic)) {
          lastTopic = m.getTopic();
          if (book.pending(lastTopic) == 0) {
            newlyPending.add(lastTopic);
          }
        }
        refs.add(storeOne(m, batch.getEnqueuedMs()));
      }
      return new CommandResult.Stored(refs, newlyPending);
    }

    /**
     * Stores {@code m} unless its key is held by a message still pending at {@code enqueuedMs} (the
     * entry's time, the same on every replica); a holder expired by then is removed as by an expiry.
     */
    private StoredRef storeOne(NewMessage m, long enqueuedMs) {
      long eventId = EventIds.of(index, slot++); // a duplicate takes its slot too
      if (!m.getKey().isEmpty()) {
        byte[] existing = ctx.get(Space.INDEX, StorageKeys.messageKeyIndex(m.getTopic(), m.getKey()));
        StoredMessage found = existing == null ? null : read(existing);
        if (found != null && !(found.getExpireMs() > 0 && found.getExpireMs() <= enqueuedMs)) {
          return new StoredRef(existing, found, true);
        }
        if (found != null) {
          remove(existing, found);
        }
      }
      nextEventId = Math.max(nextEventId, eventId + 1);
      byte[] key = EventIds.storageKey(m, bucketMs, eventId);
      StoredMessage.Builder built = StoredMessage.newBuilder().setTopic(m.getTopic()).setPayload(m.getPayload())
          .setKey(m.getKey()).setDueMs(m.getDueMs()).setEnqueuedMs(enqueuedMs).setExpireMs(m.getExpireMs())
          .setEventId(eventId); // headers only when there are some: even an empty putAll builds a map
      StoredMessage record = (m.getHeadersCount() == 0 ? built : built.putAllHeaders(m.getHeadersMap())).build();
      ctx.put(Space.MESSAGES, key, record.toByteArray());
      if (!m.getKey().isEmpty()) {
        ctx.put(Space.INDEX, StorageKeys.messageKeyIndex(m.getTopic(), m.getKey()), key);
      }
      if (m.getExpireMs() > 0) {
        ctx.put(Space.INDEX, StorageKeys.expiry(m.getTopic(), m.getExpireMs(), eventId), key);
      }
      book.addPending(m.getTopic(), 1);
      return new StoredRef(key, record, false);
    }

    private CommandResult delete(DeleteBatch batch) {
      List<byte[]> removed = new ArrayList<>();
      String topic = batch.getAcksCount() == 0 ? "" : batch.getAcks(0).getTopic();
      for (GroupAck ack : batch.getAcksList()) {
        byte[] key = ack.getStorageKey().toByteArray();
        if (ackAndMaybeRemove(ack.getTopic(), ack.getGroup(), key)) {
          removed.add(key);
        }
      }
      return new CommandResult.Removed(topic, removed, Reason.ACKED);
    }

    /** Records that {@code group} is done with the message; removes it once every group is. */
    private boolean ackAndMaybeRemove(String topic, String group, byte[] key) {
      StoredIndexes record = messages.indexesOf(topic, key);
      if (record == null) {
        return false;
      }
      List<String> groups = book.groups(topic);
      if (group.isEmpty()) {
        if (groups.isEmpty()) {
          remove(key, record);
          return true;
        }
        return false;
      }
      if (!groups.contains(group)) {
        return false;
      }
      if (groups.size() == 1) {
        // Marks are only written while another group still holds the message: none can exist.
        remove(key, record, false);
        return true;
      }
      List<byte[]> marks = ctx.keysWithPrefix(Space.INDEX, StorageKeys.ackMarkPrefix(key));
      int others = 0;
      for (byte[] mark : marks) {
        if (!Arrays.equals(mark, StorageKeys.ackMark(key, group))) {
          others++;
        }
      }
      if (others + 1 >= groups.size()) {
        remove(key, record);
        return true;
      }
      ctx.put(Space.INDEX, StorageKeys.ackMark(key, group), new byte[0]);
      return false;
    }

    private CommandResult cancel(CancelMessage cancel) {
      byte[] key = cancel.hasStorageKey() ? cancel.getStorageKey().toByteArray()
          : ctx.get(Space.INDEX, StorageKeys.messageKeyIndex(cancel.getTopic(), cancel.getKey()));
      StoredMessage record = key == null ? null : read(key);
      if (record == null || !record.getTopic().equals(cancel.getTopic())) {
        return new CommandResult.Cancelled(cancel.getTopic(), null, null, index);
      }
      remove(key, record);
      return new CommandResult.Cancelled(cancel.getTopic(), key, record, index);
    }

    private CommandResult createGroup(CreateGroup create) {
      boolean existed = book.groups(create.getTopic()).contains(create.getGroup());
      if (!existed) {
        ctx.put(Space.INDEX, StorageKeys.group(create.getTopic(), create.getGroup()), new byte[0]);
        book.addGroup(create.getTopic(), create.getGroup());
      }
      return new CommandResult.GroupCreated(create.getTopic(), create.getGroup(), existed, index);
    }

    private CommandResult expire(ExpireMessages expire) {
      List<byte[]> removed = new ArrayList<>();
      for (var keyBytes : expire.getStorageKeysList()) {
        byte[] key = keyBytes.toByteArray();
        StoredIndexes record = messages.indexesOf(expire.getTopic(), key);
        if (record != null) {
          messages.remove(key, record, true);
          removed.add(key);
        }
      }
      return new CommandResult.Removed(expire.getTopic(), removed, Reason.EXPIRED);
    }

    /**
     * Copies the message to the dead-letter topic as the group's ack, once per message and group: a
     * group whose ack mark is there (a retried DeadLetter that did commit) gets no second copy.
     */
    private CommandResult deadLetter(DeadLetter dl) {
      byte[] key = dl.getStorageKey().toByteArray();
      StoredMessage record = read(key);
      if (record == null || !record.getTopic().equals(dl.getTopic())
          || ctx.get(Space.INDEX, StorageKeys.ackMark(key, dl.getGroup())) != null) {
        return new CommandResult.DeadLettered(dl.getTopic(), dl.getGroup(), null);
      }
      NewMessage copy = NewMessage.newBuilder().setTopic(dl.getTopic() + DEAD_LETTER_SUFFIX)
          .setPayload(record.getPayload()).putAllHeaders(record.getHeadersMap())
          .putHeaders("futureq-original-key", record.getKey())
          .putHeaders("futureq-dead-letter-reason", dl.getReason())
          .putHeaders("futureq-dead-letter-group", dl.getGroup())
          .putHeaders("futureq-original-due-at-unix-ms", Long.toString(record.getDueMs()))
          .setDueMs(dl.getNowMs()).build();
      StoredRef ref = storeOne(copy, dl.getNowMs());
      ackAndMaybeRemove(dl.getTopic(), dl.getGroup(), key);
      return new CommandResult.DeadLettered(dl.getTopic(), dl.getGroup(), ref);
    }

    private void remove(byte[] key, StoredMessage record) {
      messages.remove(key, record);
    }

    private void remove(byte[] key, StoredIndexes record) {
      messages.remove(key, record, true);
    }

    private void remove(byte[] key, StoredIndexes record, boolean mayHaveMarks) {
      messages.remove(key, record, mayHaveMarks);
    }

    private StoredMessage read(byte[] key) {
      return messages.read(key);
    }
  }

  private long readLong(byte[] key, long fallback) {
    byte[] value = store.get(Space.META, key);
    return value == null ? fallback : ByteBuffer.wrap(value).getLong();
  }

  private static byte[] longBytes(long value) {
    return ByteBuffer.allocate(8).putLong(value).array();
  }
}
