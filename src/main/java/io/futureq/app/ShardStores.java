package io.futureq.app;

import io.futureq.config.BrokerSettings;
import io.futureq.config.StorageEngine;
import io.futureq.config.StorageSettings;
import io.futureq.log.BrokerStateMachine;
import io.futureq.log.ShardPlacement;
import io.futureq.log.raft.RaftEventLog;
import io.futureq.log.raft.ReplicaHost;
import io.futureq.storage.MemoryStore;
import io.futureq.storage.OrderedStore;
import io.futureq.storage.RocksStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each log shard's store this node holds and the state machine that alone writes it: shard 0 in
 * {@code futureq.storage.data-dir}, shard n in its {@code shard-n} directory (the memory engine: a store per shard,
 * all lost on exit). A node holds every shard standalone; clustered, those its Raft storage holds and those the
 * placement gives it ({@link ShardPlacement}: every shard unless the cluster has more nodes than the replication
 * factor; a joining node prepares every shard, not knowing which it will be given).
 *
 * @param stores by shard, null for a shard this node does not hold
 * @param stateMachines by shard, null likewise
 * @param placement the shards' placement over the configured peers, or null when every node holds every shard
 */
record ShardStores(List<OrderedStore> stores, List<BrokerStateMachine> stateMachines, ShardPlacement placement) {
  private static final Logger LOG = LoggerFactory.getLogger(ShardStores.class);

  /** The stores this node holds, in shard order. */
  List<OrderedStore> held() {
    return stores.stream().filter(Objects::nonNull).toList();
  }

  /**
   * Opens the store of every shard this node holds, each wrapped by {@code storeWrapper}, and checks that the data
   * directory was written in this mode (standalone or clustered), with this shard count and bucket size.
   *
   * @throws RuntimeException saying why a store cannot be used; every store opened is closed again
   */
  static ShardStores open(BrokerSettings settings, UnaryOperator<OrderedStore> storeWrapper) {
    int shards = settings.cluster().logShards();
    ShardPlacement placement = placement(settings);
    Set<Integer> placed = placement == null ? Set.of() : placement.shardsOf(settings.cluster().nodeId());
    // Once created, a node holds what its Raft storage holds: replicas move between nodes while they run.
    boolean created = settings.cluster().enabled() && ReplicaHost.groupsCreated(settings.raft());
    List<OrderedStore> stores = new ArrayList<>();
    List<BrokerStateMachine> stateMachines = new ArrayList<>();
    try {
      for (int k = 0; k < shards; k++) {
        boolean held = !settings.cluster().enabled()
            || (created ? RaftEventLog.holdsGroup(settings.raft(), k)
                : placement == null || placed.contains(k) || RaftEventLog.holdsGroup(settings.raft(), k));
        OrderedStore store = held ? storeWrapper.apply(open(settings.storage(), k)) : null;
        stores.add(store);
        if (store != null && settings.storage().engine() == StorageEngine.ROCKSDB) {
          LogShardCount.claim(store, k, dir(settings.storage(), k), shards);
          DataDirMode.claim(store, dir(settings.storage(), k), settings.cluster().enabled());
        }
        stateMachines.add(store == null ? null : new BrokerStateMachine(store, settings.topic().bucketMs()));
      }
    } catch (RuntimeException e) {
      stores.stream().filter(Objects::nonNull).forEach(OrderedStore::close);
      throw e;
    }
    if (placement != null) {
      if (heldShards(stores).isEmpty() && !created) {
        stores.stream().filter(Objects::nonNull).forEach(OrderedStore::close);
        throw new IllegalStateException("node " + settings.cluster().nodeId() + " would hold no log shard: "
            + placement.nodes().size() + " nodes hold " + shards + " shards " + placement.replicationFactor()
            + " times each; raise futureq.cluster.log-shards (a node holds at most one replica of a shard)");
      }
      LOG.info("node {} holds log shards {} of {} (replication factor {} over {} nodes)",
          settings.cluster().nodeId(), heldShards(stores), shards, placement.replicationFactor(),
          placement.nodes().size());
    }
    return new ShardStores(Collections.unmodifiableList(stores), Collections.unmodifiableList(stateMachines),
        placement);
  }

  /**
   * The placement of a clustered node's shards over the configured peers, or null when every node holds every
   * shard: standalone, when no more peers than the replication factor, and on a joining node (its peers name only
   * some members).
   */
  static ShardPlacement placement(BrokerSettings settings) {
    if (!settings.cluster().enabled() || settings.raft().join()) {
      return null;
    }
    ShardPlacement placement = ShardPlacement.of(settings.raft().peers().keySet(), settings.cluster().logShards(),
        settings.cluster().replicationFactor());
    return placement.everywhere() ? null : placement;
  }

  /** The shards this node holds, in order. */
  List<Integer> heldShards() {
    return heldShards(stores);
  }

  private static List<Integer> heldShards(List<OrderedStore> stores) {
    List<Integer> out = new ArrayList<>();
    for (int k = 0; k < stores.size(); k++) {
      if (stores.get(k) != null) {
        out.add(k);
      }
    }
    return out;
  }

  /**
   * Opens a new store for log shard {@code shard}, a replica this node takes up while it runs (clustered, RocksDB or
   * memory): whatever a replica given up before left there is deleted first. Claimed as {@link #open} claims.
   */
  static OrderedStore openNew(BrokerSettings settings, int shard, UnaryOperator<OrderedStore> storeWrapper) {
    delete(settings, shard);
    OrderedStore store = storeWrapper.apply(open(settings.storage(), shard));
    if (settings.storage().engine() == StorageEngine.ROCKSDB) {
      try {
        LogShardCount.claim(store, shard, dir(settings.storage(), shard), settings.cluster().logShards());
        DataDirMode.claim(store, dir(settings.storage(), shard), true);
      } catch (RuntimeException e) {
        store.close();
        throw e;
      }
    }
    return store;
  }

  /**
   * Deletes log shard {@code shard}'s store (closed), given up by this node. Shard 0's lies in the data directory
   * itself, beside the other shards' and the Raft storage: RocksDB deletes its own files there, nothing else.
   */
  static void delete(BrokerSettings settings, int shard) {
    if (settings.storage().engine() != StorageEngine.ROCKSDB) {
      return;
    }
    Path dir = dir(settings.storage(), shard);
    if (!Files.isDirectory(dir)) {
      return;
    }
    try (Options options = new Options()) {
      RocksDB.destroyDB(dir.toString(), options); // removes the directory too when nothing else is left in it
      if (shard != 0 && Files.isDirectory(dir)) {
        try (Stream<Path> left = Files.walk(dir)) {
          for (Path p : left.sorted(Comparator.reverseOrder()).toList()) {
            Files.delete(p);
          }
        }
      }
    } catch (RocksDBException | IOException e) {
      throw new IllegalStateException("cannot delete the store of log shard " + shard + " in " + dir + ": "
          + e.getMessage(), e);
    }
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
