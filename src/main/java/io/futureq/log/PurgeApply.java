package io.futureq.log;

import io.futureq.log.proto.PurgeTopic;
import io.futureq.storage.OrderedStore.Space;
import io.futureq.storage.StorageKeys;
import java.util.ArrayList;
import java.util.List;

/**
 * How {@link BrokerStateMachine} applies a PurgeTopic: one bounded chunk per command, so no entry grows with the
 * backlog. A purge removes what was stored before its first chunk (whose event-id bound later chunks name), so
 * publishes going on meanwhile cannot keep it running; a topic delete removes everything, then the topic itself.
 */
final class PurgeApply {
  private PurgeApply() {}

  static CommandResult apply(StoredMessages messages, PurgeTopic purge, long nextEventId) {
    String topic = purge.getTopic();
    TopicBook book = messages.book();
    if (!book.known(topic)) {
      return new CommandResult.Purged(topic, false, List.of(), false, 0, false, List.of());
    }
    long before = purge.getDeleteTopic() ? Long.MAX_VALUE
        : purge.getBeforeEventId() > 0 ? purge.getBeforeEventId() : nextEventId;
    int max = Math.max(1, purge.getMaxMessages());
    long hash = StorageKeys.topicHash(topic);
    List<byte[]> keys = messages.ctx().messageKeys(StorageKeys.messageRangeStart(hash, 0),
        StorageKeys.messageRangeEnd(hash), max, eventId -> eventId < before);
    List<byte[]> removed = new ArrayList<>(keys.size());
    for (byte[] key : keys) {
      StoredIndexes record = messages.indexesOf(topic, key);
      if (record != null) {
        messages.remove(key, record, true);
        removed.add(key);
      }
    }
    boolean more = keys.size() >= max && !removed.isEmpty();
    if (!purge.getDeleteTopic() || more) {
      return new CommandResult.Purged(topic, true, removed, more, before, false, List.of());
    }
    List<String> groups = List.copyOf(book.groups(topic));
    groups.forEach(g -> messages.ctx().delete(Space.INDEX, StorageKeys.group(topic, g)));
    book.dropTopic(topic);
    return new CommandResult.Purged(topic, true, removed, false, before, true, groups);
  }
}
