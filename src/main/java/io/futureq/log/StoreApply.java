package io.futureq.log;

import io.futureq.log.CommandResult.StoredRef;
import io.futureq.log.proto.NewMessage;
import io.futureq.log.proto.StoreBatch;
import io.futureq.log.proto.StoredMessage;
import io.futureq.storage.OrderedStore.Space;
import io.futureq.storage.StorageKeys;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * How {@link BrokerStateMachine} stores new messages: those of a StoreBatch, and the copy a DeadLetter makes. One
 * instance serves one entry, because each new message takes the entry's next slot and so its event id
 * ({@link EventIds}); a message found a duplicate takes its slot too, so ids depend on the entry alone.
 */
final class StoreApply {
  private final StoredMessages messages;
  private final SharedBucketSize sharedBucket;
  private final long bucketMs;
  private final long index;
  /** One past the highest event id assigned: where a purge of "everything stored so far" ends. */
  private long nextEventId;
  /** The slot of the next new message. */
  private int slot;

  /** @param nextEventId one past the highest event id assigned before entry {@code index} */
  StoreApply(StoredMessages messages, SharedBucketSize sharedBucket, long bucketMs, long index, long nextEventId) {
    this.messages = messages;
    this.sharedBucket = sharedBucket;
    this.bucketMs = bucketMs;
    this.index = index;
    this.nextEventId = nextEventId;
  }

  /** The next new message takes {@code first}: a command's first slot follows the slots of the commands before it. */
  void startAt(int first) {
    slot = first;
  }

  long nextEventId() {
    return nextEventId;
  }

  CommandResult.Stored apply(StoreBatch batch) {
    sharedBucket.admit(messages.ctx(), batch);
    TopicBook book = messages.book();
    List<StoredRef> refs = new ArrayList<>(batch.getMessagesCount());
    Set<String> newlyPending = new HashSet<>();
    // A request nearly always names one topic: its hash and pending count are looked up once per run of messages
    // of one topic, and the run's new messages are counted once, when the run ends.
    String runTopic = null;
    long runHash = 0;
    int runStored = 0;
    for (NewMessage m : batch.getMessagesList()) {
      if (!m.getTopic().equals(runTopic)) {
        countPending(runTopic, runStored);
        runStored = 0;
        runTopic = m.getTopic();
        runHash = StorageKeys.topicHash(runTopic);
        if (book.pending(runTopic) == 0) {
          newlyPending.add(runTopic);
        }
      }
      if (!m.getKey().isEmpty()) {
        // A keyed message may find and remove a holder, which counts down: the count must be exact before that.
        countPending(runTopic, runStored);
        runStored = 0;
      }
      StoredRef ref = storeOne(m, runTopic, runHash, batch.getEnqueuedMs());
      refs.add(ref);
      if (!ref.duplicate()) {
        runStored++;
      }
    }
    countPending(runTopic, runStored);
    return new CommandResult.Stored(refs, newlyPending);
  }

  private void countPending(String topic, int stored) {
    if (stored > 0) {
      messages.book().addPending(topic, stored);
    }
  }

  /** Stores {@code m} as {@link #storeOne(NewMessage, String, long, long)} does, and counts it pending. */
  StoredRef storeOne(NewMessage m, long enqueuedMs) {
    StoredRef ref = storeOne(m, m.getTopic(), StorageKeys.topicHash(m.getTopic()), enqueuedMs);
    if (!ref.duplicate()) {
      messages.book().addPending(m.getTopic(), 1);
    }
    return ref;
  }

  /**
   * Stores {@code m} unless its key is held by a message still pending at {@code enqueuedMs} (the
   * entry's time, the same on every replica); a holder expired by then is removed as by an expiry. The caller counts
   * a message stored (not a duplicate) pending. {@code topic} is the message's, as one instance for all messages of
   * a run, so that those who group the stored messages by topic compare references.
   */
  private StoredRef storeOne(NewMessage m, String topic, long topicHash, long enqueuedMs) {
    ApplyContext ctx = messages.ctx();
    long eventId = EventIds.of(index, slot++); // a duplicate takes its slot too
    if (!m.getKey().isEmpty()) {
      byte[] existing = ctx.get(Space.INDEX, StorageKeys.messageKeyIndex(m.getTopic(), m.getKey()));
      StoredMessage found = existing == null ? null : messages.read(existing);
      if (found != null && !(found.getExpireMs() > 0 && found.getExpireMs() <= enqueuedMs)) {
        return new StoredRef(existing, found, true);
      }
      if (found != null) {
        messages.remove(existing, found);
      }
    }
    nextEventId = Math.max(nextEventId, eventId + 1);
    byte[] key = EventIds.storageKey(topicHash, m, bucketMs, eventId);
    StoredMessage.Builder built = StoredMessage.newBuilder().setTopic(topic).setPayload(m.getPayload())
        .setKey(m.getKey()).setDueMs(m.getDueMs()).setEnqueuedMs(enqueuedMs).setExpireMs(m.getExpireMs())
        .setEventId(eventId);
    if (m.getHeadersCount() > 0) { // even an empty addAll gives the builder a list of its own
      built.addAllHeaders(m.getHeadersList());
    }
    StoredMessage record = built.build();
    ctx.put(Space.MESSAGES, key, record.toByteArray());
    messages.book().countDue(topic, key, 1);
    if (!m.getKey().isEmpty()) {
      ctx.put(Space.INDEX, StorageKeys.messageKeyIndex(m.getTopic(), m.getKey()), key);
    }
    if (m.getExpireMs() > 0) {
      ctx.put(Space.INDEX, StorageKeys.expiry(m.getTopic(), m.getExpireMs(), eventId), key);
    }
    return new StoredRef(key, record, false);
  }
}
