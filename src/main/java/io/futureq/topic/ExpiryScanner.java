package io.futureq.topic;

import io.futureq.storage.OrderedStore;
import io.futureq.storage.OrderedStore.Space;
import io.futureq.storage.StorageKeys;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Walks a topic's TTL index (ordered by expiry time), so expired messages are found without
 * sweeping the messages. Blocking: call it on the storage dispatcher.
 */
final class ExpiryScanner {
  /**
   * @param storageKeys messages expired by the scan time, at most the limit
   * @param nextExpiryMs expiry time of the first message not returned (Long.MAX_VALUE if none)
   */
  record Expired(List<byte[]> storageKeys, long nextExpiryMs) {}

  private ExpiryScanner() {}

  static Expired scan(OrderedStore store, String topic, long nowMs, int limit) {
    byte[] prefix = StorageKeys.expiryPrefix(topic);
    byte[] dueEnd = ByteBuffer.allocate(prefix.length + 8).put(prefix).putLong(nowMs + 1).array();
    List<byte[]> keys = new ArrayList<>();
    try (OrderedStore.View view = store.view();
        OrderedStore.RangeIterator it = view.range(Space.INDEX, prefix, StorageKeys.prefixEnd(prefix))) {
      for (; it.valid(); it.next()) {
        if (Arrays.compareUnsigned(it.key(), dueEnd) >= 0 || keys.size() >= limit) {
          return new Expired(keys, StorageKeys.expireMsOf(topic, it.key()));
        }
        keys.add(it.value());
      }
    }
    return new Expired(keys, Long.MAX_VALUE);
  }
}
