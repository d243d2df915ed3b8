package io.futureq.reliability;

import io.futureq.config.ClusterSettings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;

/**
 * A digest of what a stopped node's RocksDB store holds that Raft replicates, so that three
 * replicas can be compared offline once they have applied the same log. Every key and value of the
 * {@code messages} and {@code index} column families is replicated (both are written only by the
 * replicated apply, or by a snapshot install copying another replica's). Of {@code default} (META),
 * {@code applied-index}, {@code next-event-id} and {@code replicated-bucket-ms} are written by the
 * apply too; {@code bucket-ms} (this node's configured bucket size, checked at open) and {@code mode}
 * (standalone or clustered, checked at start) are written by each node for itself at start-up, so
 * they are node-local and left out.
 *
 * <p>White box: it knows the column families of {@code RocksStore} and the META keys of {@code
 * BrokerStateMachine} and {@code DataDirMode}; change it with them.
 */
final class StoreDigest {
  static {
    RocksDB.loadLibrary();
  }

  /** META keys each node writes for itself, outside the replicated log. */
  static final Set<String> NODE_LOCAL_META = Set.of("bucket-ms", "mode", "log-shards");
  private static final List<String> FAMILIES = List.of("default", "messages", "index");

  private StoreDigest() {}

  /**
   * Column family -> "N entries, sha256 ..." over its replicated entries in key order; with several log shards, each
   * shard's families too ({@code shard-1/messages}, ...), from the shards' stores inside {@code store}: those of the
   * shards the node holds.
   */
  static Map<String, String> of(Path store) throws Exception {
    Map<String, String> digests = new LinkedHashMap<>();
    if (Files.exists(store.resolve("CURRENT"))) {
      digests.putAll(ofOne(store)); // shard 0's, unless this node holds no replica of it
    }
    for (int shard = 1; shard <= ClusterSettings.MAX_LOG_SHARDS; shard++) {
      if (!Files.isDirectory(store.resolve("shard-" + shard))) {
        continue;
      }
      String prefix = "shard-" + shard + "/";
      ofOne(store.resolve("shard-" + shard)).forEach((family, digest) -> digests.put(prefix + family, digest));
    }
    return digests;
  }

  private static Map<String, String> ofOne(Path store) throws Exception {
    List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
    for (String family : FAMILIES) {
      descriptors.add(new ColumnFamilyDescriptor(family.equals("default") ? RocksDB.DEFAULT_COLUMN_FAMILY
          : family.getBytes(StandardCharsets.UTF_8)));
    }
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    Map<String, String> digests = new LinkedHashMap<>();
    try (DBOptions options = new DBOptions();
        RocksDB db = RocksDB.openReadOnly(options, store.toString(), descriptors, handles)) {
      try {
        for (int i = 0; i < FAMILIES.size(); i++) {
          MessageDigest sha = MessageDigest.getInstance("SHA-256");
          long entries = 0;
          try (RocksIterator it = db.newIterator(handles.get(i))) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
              byte[] key = it.key();
              if (i == 0 && NODE_LOCAL_META.contains(new String(key, StandardCharsets.UTF_8))) {
                continue;
              }
              byte[] value = it.value();
              // length-prefixed, so that no two different entry lists hash alike
              sha.update(intBytes(key.length));
              sha.update(key);
              sha.update(intBytes(value.length));
              sha.update(value);
              entries++;
            }
          }
          digests.put(FAMILIES.get(i), entries + " entries, sha256 " + HexFormat.of().formatHex(sha.digest())
              .substring(0, 16));
        }
      } finally {
        handles.forEach(ColumnFamilyHandle::close);
      }
    }
    return digests;
  }

  private static byte[] intBytes(int n) {
    return new byte[] {(byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n};
  }
}
