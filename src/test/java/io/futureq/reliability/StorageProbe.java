package io.futureq.reliability;

import io.futureq.storage.MessageIds;
import io.futureq.storage.StorageKeys;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;

/**
 * Reads a dead broker's data directory (read-only, after its SIGKILL and before its restart) to
 * tell which messages a group's acks had made durable: the group's ack mark is in the index, or the
 * message is gone from the messages column family although the store has applied the entry that
 * stored it (its {@code next-event-id} is past the message's event id: a lagging cluster replica
 * that never stored it proves nothing). This is what the restarted broker recovers (and, on a
 * cluster replica, what was committed), so a later delivery of such a message is a resurrection,
 * exactly.
 *
 * <p>White box: it knows the column families of {@code RocksStore} and the key layout of
 * {@link StorageKeys}, and the {@code next-event-id} META key of {@code BrokerStateMachine}; change it
 * with them.
 */
final class StorageProbe {
  static {
    RocksDB.loadLibrary();
  }

  private StorageProbe() {}

  /** Of {@code messageIds} (of {@code topic}), those whose ack by {@code group} is durable in {@code data}. */
  static Set<String> durablyAcked(Path data, String topic, String group, Collection<String> messageIds)
      throws Exception {
    List<ColumnFamilyDescriptor> families = List.of(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY),
        new ColumnFamilyDescriptor("messages".getBytes(StandardCharsets.UTF_8)),
        new ColumnFamilyDescriptor("index".getBytes(StandardCharsets.UTF_8)));
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    Set<String> done = new HashSet<>();
    try (DBOptions options = new DBOptions();
        RocksDB db = RocksDB.openReadOnly(options, data.toString(), families, handles)) {
      try {
        ColumnFamilyHandle messages = handles.get(1);
        ColumnFamilyHandle index = handles.get(2);
        byte[] next = db.get(handles.get(0), "next-event-id".getBytes(StandardCharsets.UTF_8));
        long nextEventId = next == null ? 0 : ByteBuffer.wrap(next).getLong();
        for (String id : messageIds) {
          byte[] key = MessageIds.storageKey(topic, id);
          boolean applied = StorageKeys.eventIdOf(key) < nextEventId;
          if ((applied && db.get(messages, key) == null) || db.get(index, StorageKeys.ackMark(key, group)) != null) {
            done.add(id);
          }
        }
      } finally {
        handles.forEach(ColumnFamilyHandle::close);
      }
    }
    return done;
  }
}
