package io.futureq.app;

import io.futureq.config.BrokerSettings;
import io.futureq.config.StorageEngine;
import io.futureq.config.StorageSettings;
import io.futureq.log.BrokerStateMachine;
import io.futureq.storage.MemoryStore;
import io.futureq.storage.OrderedStore;
import io.futureq.storage.RocksStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each log shard's store and the state machine that alone writes it: shard 0 in {@code futureq.storage.data-dir},
 * shard n in its {@code shard-n} directory (the memory engine: a store per shard, all lost on exit).
 *
 * @param stores by shard
 * @param stateMachines by shard
 */
record ShardStores(List<OrderedStore> stores, List<BrokerStateMachine> stateMachines) {
  private static final Logger LOG = LoggerFactory.getLogger(ShardStores.class);

  /**
   * Opens every shard's store, each wrapped by {@code storeWrapper}, and checks that the data directory was written
   * in this mode (standalone or clustered), with this shard count and bucket size.
   *
   * @throws RuntimeException saying why a store cannot be used; every store opened is closed again
   */
  static ShardStores open(BrokerSettings settings, UnaryOperator<OrderedStore> storeWrapper) {
    int shards = settings.cluster().logShards();
    List<OrderedStore> stores = new ArrayList<>();
    List<BrokerStateMachine> stateMachines = new ArrayList<>();
    try {
      for (int k = 0; k < shards; k++) {
        stores.add(storeWrapper.apply(open(settings.storage(), k)));
      }
      if (settings.storage().engine() == StorageEngine.ROCKSDB) {
        LogShardCount.claim(stores.get(0), settings.storage().dataDir(), shards);
        for (int k = 0; k < shards; k++) {
          DataDirMode.claim(stores.get(k), dir(settings.storage(), k), settings.cluster().enabled());
        }
      }
      for (OrderedStore store : stores) {
        stateMachines.add(new BrokerStateMachine(store, settings.topic().bucketMs()));
      }
    } catch (RuntimeException e) {
      stores.forEach(OrderedStore::close);
      throw e;
    }
    return new ShardStores(List.copyOf(stores), List.copyOf(stateMachines));
  }

  /** Where log shard {@code shard} keeps its store. */
  static Path dir(StorageSettings storage, int shard) {
    return shard == 0 ? storage.dataDir() : storage.dataDir().resolve("shard-" + shard);
  }

  private static OrderedStore open(StorageSettings storage, int shard) {
    if (storage.engine() == StorageEngine.MEMORY) {
      if (shard == 0) {
        LOG.warn("STORAGE IS IN MEMORY ONLY (futureq.storage.engine = memory): NOTHING SURVIVES A RESTART OR A "
            + "CRASH. Every pending message, group and event id is lost when this process stops; publishes are "
            + "acknowledged without being written anywhere. Use futureq.storage.engine = rocksdb for messages you "
            + "need to keep.");
      }
      return MemoryStore.create();
    }
    return RocksStore.open(dir(storage, shard), storage);
  }
}
