package io.futureq.log;

import io.futureq.log.proto.LeaderEntry;
import io.futureq.log.proto.LogCommand;
import io.futureq.storage.OrderedStore;
import io.futureq.storage.OrderedStore.Space;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

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
    this.book = new TopicBook(store, bucketMs);
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
      ctx.put(Space.META, NEXT_EVENT_ID, longBytes(apply.nextEventId()));
      return new Prepared(index, ctx, results, apply.nextEventId());
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
    book.commitTouched(prepared.index);
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

  /** Counts of stored messages per topic and due second, for the console's timeline; safe from any thread. */
  public DueCounts dueCounts() {
    return book.dueCounts();
  }

  /** Whether {@code topic} has ever stored a message or a group; safe from any thread. */
  public boolean knowsTopic(String topic) {
    return book.committedPendingOrMinusOne(topic) >= 0;
  }

  /** Topics known, as last committed; safe from any thread. */
  public int topicCount() {
    return book.topicCount();
  }

  /**
   * One entry being applied: hands each command to the class that says how it is applied ({@link StoreApply},
   * {@link AckApply}, {@link CancelApply} and their siblings), and gives each command its first slot.
   */
  private final class Apply {
    private final ApplyContext ctx;
    private final StoredMessages messages;
    private final StoreApply stores;
    private final long index;
    /** The Raft term of the log entry: a leader entry of another term is fenced. */
    private final long term;
    /** The slot of the next command's first new message; see {@link EventIds}. */
    private int nextCommandSlot;

    Apply(ApplyContext ctx, long index, long term, long nextEventId) {
      this.ctx = ctx;
      this.messages = new StoredMessages(ctx, book);
      this.stores = new StoreApply(messages, sharedBucket, bucketMs, index, nextEventId);
      this.index = index;
      this.term = term;
    }

    /** One past the highest event id assigned so far. */
    long nextEventId() {
      return stores.nextEventId();
    }

    /** Applies one command of the entry; its new messages take the slots after the commands before it. */
    CommandResult command(LogCommand command) {
      int first = nextCommandSlot;
      nextCommandSlot += EventIds.slotsOf(command);
      stores.startAt(first); // a fenced leader entry takes its slots too: ids depend on the entry alone
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
        case STORE: return stores.apply(command.getStore());
        case DELETE: return AckApply.apply(messages, command.getDelete());
        case CANCEL: return CancelApply.apply(messages, command.getCancel(), index);
        case CREATE_GROUP: return GroupCreateApply.apply(messages, command.getCreateGroup(), index);
        case EXPIRE: return ExpireApply.apply(messages, command.getExpire());
        case DEAD_LETTER: return DeadLetterApply.apply(stores, messages, command.getDeadLetter());
        case JOURNAL_WRITE: return JournalApply.write(ctx, index, command.getJournalWrite());
        case JOURNAL_DELETE: return JournalApply.delete(ctx, index, command.getJournalDelete());
        case DELETE_GROUP: return GroupDeleteApply.apply(messages, command.getDeleteGroup());
        case PURGE_TOPIC: return PurgeApply.apply(messages, command.getPurgeTopic(), stores.nextEventId());
        case RESCHEDULE: return RescheduleApply.apply(messages, bucketMs, command.getReschedule());
        case NACK_DELAY: return NackDelayApply.apply(ctx, command.getNackDelay());
        case LEADER_ENTRY: throw new IllegalArgumentException("a leader entry inside a leader entry: " + command);
        default: throw new IllegalArgumentException("log command without a body: " + command);
      }
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
