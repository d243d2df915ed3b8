package io.futureq.log;

import io.futureq.storage.OrderedStore;
import io.futureq.storage.OrderedStore.Space;
import io.futureq.storage.StorageKeys;
import java.util.ArrayList;
import java.util.List;

/** Reads the durable consumer groups of a topic. */
public final class GroupRegistry {
  private GroupRegistry() {}

  public static List<String> read(OrderedStore store, String topic) {
    byte[] prefix = StorageKeys.groupPrefix(topic);
    List<String> names = new ArrayList<>();
    try (OrderedStore.View view = store.view();
        OrderedStore.RangeIterator it = view.range(Space.INDEX, prefix, StorageKeys.prefixEnd(prefix))) {
      for (; it.valid(); it.next()) {
        names.add(StorageKeys.groupNameOf(topic, it.key()));
      }
    }
    return names;
  }
}
