package io.futureq.log;

import com.google.protobuf.InvalidProtocolBufferException;
import io.futureq.config.StorageSettings;
import io.futureq.log.proto.LogCommand;
import io.futureq.log.proto.StoredMessage;
import io.futureq.storage.OrderedStore;
import io.futureq.storage.OrderedStore.Space;
import io.futureq.storage.RocksStore;
import io.futureq.storage.StorageKeys;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/** A real RocksStore, BrokerStateMachine and LocalEventLog over one directory, for tests. */
public final class TestLog implements AutoCloseable {
  private final Path dir;
  private final long bucketMs;
  private final UnaryOperator<OrderedStore> wrapper;
  private final Map<CommandResult, Long> indexes = Collections.synchronizedMap(new IdentityHashMap<>());
  private final List<Long> appliedIndexes = Collections.synchronizedList(new ArrayList<>());
  private RocksStore store;
  private BrokerStateMachine stateMachine;
  private LocalEventLog log;

  private TestLog(Path dir, long bucketMs, UnaryOperator<OrderedStore> wrapper) {
    this.dir = dir;
    this.bucketMs = bucketMs;
    this.wrapper = wrapper;
  }

  public static TestLog open(Path dir, long bucketMs) {
    return open(dir, bucketMs, UnaryOperator.identity());
  }

  /** As above, with the state machine and the log writing through {@code wrapper}'s store (fault injection). */
  public static TestLog open(Path dir, long bucketMs, UnaryOperator<OrderedStore> wrapper) {
    TestLog testLog = new TestLog(dir, bucketMs, wrapper);
    testLog.start();
    return testLog;
  }

  private void start() {
    store = RocksStore.open(dir, StorageSettings.defaults(dir));
    OrderedStore wrapped = wrapper.apply(store);
    stateMachine = new BrokerStateMachine(wrapped, bucketMs);
    log = new LocalEventLog(wrapped, stateMachine, true, 1024, new WriteQueueLimit(100_000, 1L << 30),
        (index, result) -> {
          indexes.put(result, index);
          appliedIndexes.add(index);
        }, nanos -> { });
  }

  /** Closes the log and store, then opens them again on the same directory. */
  public void reopen() {
    close();
    start();
  }

  public RocksStore store() {
    return store;
  }

  public BrokerStateMachine stateMachine() {
    return stateMachine;
  }

  public LocalEventLog log() {
    return log;
  }

  /** Every applied index told to the listener, in order. */
  public List<Long> appliedIndexes() {
    synchronized (appliedIndexes) {
      return List.copyOf(appliedIndexes);
    }
  }

  /** Appends {@code command} and waits for its result. */
  public CommandResult apply(LogCommand command) {
    try {
      return log.append(command).toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("append failed: " + command, e);
    }
  }

  /** The log index at which {@code result} was applied. */
  public long indexOf(CommandResult result) {
    Long index = indexes.get(result);
    if (index == null) {
      throw new AssertionError("the listener never saw " + result);
    }
    return index;
  }

  /** The stored message under {@code storageKey}, or null. */
  public StoredMessage read(byte[] storageKey) {
    byte[] bytes = store.get(Space.MESSAGES, storageKey);
    try {
      return bytes == null ? null : StoredMessage.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw new AssertionError(e);
    }
  }

  /** Every stored message of {@code topic}, in key order. */
  public List<StoredMessage> messagesOf(String topic) {
    long hash = StorageKeys.topicHash(topic);
    List<StoredMessage> out = new ArrayList<>();
    try (OrderedStore.View view = store.view(); OrderedStore.RangeIterator it = view.range(Space.MESSAGES,
        StorageKeys.messageRangeStart(hash, 0), StorageKeys.messageRangeEnd(hash))) {
      for (; it.valid(); it.next()) {
        out.add(read(it.key()));
      }
    }
    return out;
  }

  public int countIndexKeys(byte[] prefix) {
    int n = 0;
    try (OrderedStore.View view = store.view();
        OrderedStore.RangeIterator it = view.range(Space.INDEX, prefix, StorageKeys.prefixEnd(prefix))) {
      for (; it.valid(); it.next()) {
        n++;
      }
    }
    return n;
  }

  @Override
  public void close() {
    log.close();
    store.close();
  }
}
