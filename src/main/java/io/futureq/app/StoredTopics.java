package io.futureq.app;

import com.google.protobuf.InvalidProtocolBufferException;
import io.futureq.log.proto.TopicMeta;
import io.futureq.storage.OrderedStore;
import io.futureq.storage.StorageKeys;
import java.util.List;
import java.util.function.Consumer;

/** The topics a store holds, read from their metadata records. */
final class StoredTopics {
  private StoredTopics() {}

  /** As {@link #forEach(OrderedStore, Consumer)} for each store (each log shard's). */
  static void forEach(List<OrderedStore> stores, Consumer<TopicMeta> action) {
    stores.forEach(store -> forEach(store, action));
  }

  /** Calls {@code action} with the metadata of every stored topic, from one point-in-time view. */
  static void forEach(OrderedStore store, Consumer<TopicMeta> action) {
    byte[] prefix = StorageKeys.topicMetaPrefix();
    try (OrderedStore.View view = store.view();
        OrderedStore.RangeIterator it = view.range(OrderedStore.Space.INDEX, prefix, StorageKeys.prefixEnd(prefix))) {
      for (; it.valid(); it.next()) {
        action.accept(TopicMeta.parseFrom(it.value()));
      }
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("corrupt topic metadata", e);
    }
  }
}
