package io.futureq.log.raft;

import com.google.protobuf.InvalidProtocolBufferException;
import io.futureq.config.RaftSettings;
import io.futureq.config.StorageSettings;
import io.futureq.log.BrokerStateMachine;
import io.futureq.log.CommandResult;
import io.futureq.log.EventLog;
import io.futureq.log.WriteQueueLimit;
import io.futureq.log.proto.StoredMessage;
import io.futureq.log.proto.TopicMeta;
import io.futureq.storage.OrderedStore;
import io.futureq.storage.OrderedStore.Space;
import io.futureq.storage.RocksStore;
import io.futureq.storage.StorageKeys;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.stream.Stream;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.server.RaftServerConfigKeys;

/** One replica for tests: a real RocksStore, BrokerStateMachine and RaftEventLog under its own directory. */
final class RaftNode implements AutoCloseable {
  private static final Duration SLOW_START = Duration.ofSeconds(30);
  private static final ScheduledExecutorService WATCHDOG = Executors.newSingleThreadScheduledExecutor(runnable -> {
    Thread thread = new Thread(runnable, "raft-node-start-watchdog");
    thread.setDaemon(true);
    return thread;
  });
  static final long BUCKET_MS = 1;

  private final Path dir;
  private final RaftSettings settings;
  /** Event ids of stored messages in the order the listener was told of them, and the indexes told. */
  private final List<Long> announcedEventIds = Collections.synchronizedList(new ArrayList<>());
  private final List<Long> announcedIndexes = Collections.synchronizedList(new ArrayList<>());
  /** The applied indexes of the store replacements (snapshot installs) the listener was told of. */
  private final List<Long> replacements = Collections.synchronizedList(new ArrayList<>());
  /** What stopped this replica from applying, once something did. */
  private final AtomicReference<Throwable> fatal = new AtomicReference<>();
  private RocksStore store;
  private RaftEventLog log;
  private ReplicaHost host;
  private Consumer<RaftProperties> tuning = properties -> { };
  private WriteQueueLimit limit = new WriteQueueLimit(100_000, 1L << 30);
  private LongConsumer afterEachApply = nanos -> { };

  RaftNode(Path dir, RaftSettings settings) {
    this.dir = dir;
    this.settings = settings;
  }

  String id() {
    return settings.nodeId();
  }

  RaftSettings settings() {
    return settings;
  }

  void start() {
    store = RocksStore.open(dir.resolve("data"), StorageSettings.defaults(dir.resolve("data")));
    BrokerStateMachine machine = new BrokerStateMachine(store, BUCKET_MS);
    try {
      // A start that hung once in CI (waiting on Ratis' division initialisation) left no trace: print every
      // thread's stack if it ever takes this long again.
      ScheduledFuture<?> watchdog = WATCHDOG.schedule(() -> printThreads("the Raft server of " + settings.nodeId()
          + " has not started after " + SLOW_START.toSeconds() + " s"), SLOW_START.toMillis(), TimeUnit.MILLISECONDS);
      try {
        log = RaftEventLog.start(settings, store, machine, limit, listener(), afterEachApply, fatal::set, tuning);
        host = log.host();
      } finally {
        watchdog.cancel(false);
      }
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
  }

  /**
   * Gives up this node's replica while its server keeps running (the node should have been removed from the group
   * first), and deletes its store, as a broker that gave up a shard does.
   */
  void giveUpReplica() throws IOException {
    host.giveUp(0);
    log = null;
    store.close();
    store = null;
    deleteTree(dir.resolve("data"));
  }

  /** Takes up a replica again, from a new store, in the server that kept running: it waits to be added. */
  void takeUpReplica() throws IOException {
    store = RocksStore.open(dir.resolve("data"), StorageSettings.defaults(dir.resolve("data")));
    log = host.takeUp(new ReplicaHost.Shard(0, store, new BrokerStateMachine(store, BUCKET_MS), listener(), null));
  }

  /** Whether this node's Raft storage holds the group's directory. */
  boolean holdsGroup() {
    return RaftEventLog.holdsGroup(settings, 0);
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  private EventLog.AppliedListener listener() {
    return new EventLog.AppliedListener() {
      @Override
      public void applied(long index, CommandResult result) {
        announced(index, result);
      }

      @Override
      public void storeReplaced(long appliedIndex) {
        replacements.add(appliedIndex);
      }
    };
  }

  private static void printThreads(String why) {
    StringBuilder out = new StringBuilder("--- ").append(why).append(": every thread's stack\n");
    Thread.getAllStackTraces().forEach((thread, stack) -> {
      out.append('"').append(thread.getName()).append("\" ").append(thread.getState()).append('\n');
      for (StackTraceElement frame : stack) {
        out.append("    at ").append(frame).append('\n');
      }
    });
    System.out.println(out);
  }

  /**
   * From the next start on, the node takes no snapshot when it stops, as after a crash: a restart then
   * replays the Raft log from the last snapshot over a store that already holds those entries.
   */
  void noSnapshotOnStop() {
    tuning = properties -> RaftServerConfigKeys.Snapshot.setTriggerWhenStopEnabled(properties, false);
  }

  /** From the next start on, Ratis's properties are changed by {@code tuning} too. */
  void tune(Consumer<RaftProperties> more) {
    Consumer<RaftProperties> before = tuning;
    tuning = before.andThen(more);
  }

  /** From the next start on, runs on the apply thread after every entry this replica applies. */
  void afterEachApply(Runnable hook) {
    this.afterEachApply = nanos -> hook.run();
  }

  /** From the next start on, at most this much waits to be submitted. */
  void limitQueue(WriteQueueLimit limit) {
    this.limit = limit;
  }

  boolean running() {
    return log != null;
  }

  /** Closes the log, the server and the store, as a clean shutdown does. */
  void stop() {
    if (host != null) {
      try {
        host.close();
      } finally {
        if (store != null) {
          store.close();
        }
        log = null;
        store = null;
        host = null;
      }
    }
  }

  /** Stops the node and deletes its store and Raft storage. */
  void wipe() throws IOException {
    stop();
    deleteTree(dir);
    announcedEventIds.clear();
    announcedIndexes.clear();
    replacements.clear();
  }

  RaftEventLog log() {
    return log;
  }

  OrderedStore store() {
    return store;
  }

  RaftStatus status() {
    return log.status();
  }

  long appliedIndex() {
    return log.appliedIndex();
  }

  /** The Raft state machine directory, where snapshots are kept. */
  Path snapshotDir() {
    return RaftServerFactory.groupDir(settings, 0).resolve("sm");
  }

  List<Long> announcedEventIds() {
    synchronized (announcedEventIds) {
      return List.copyOf(announcedEventIds);
    }
  }

  Throwable fatal() {
    return fatal.get();
  }

  List<Long> replacements() {
    synchronized (replacements) {
      return List.copyOf(replacements);
    }
  }

  List<Long> announcedIndexes() {
    synchronized (announcedIndexes) {
      return List.copyOf(announcedIndexes);
    }
  }

  /** Every stored message of {@code topic}, in key order. */
  List<StoredMessage> messagesOf(String topic) {
    long hash = StorageKeys.topicHash(topic);
    List<StoredMessage> out = new ArrayList<>();
    try (OrderedStore.View view = store.view(); OrderedStore.RangeIterator it = view.range(Space.MESSAGES,
        StorageKeys.messageRangeStart(hash, 0), StorageKeys.messageRangeEnd(hash))) {
      for (; it.valid(); it.next()) {
        out.add(StoredMessage.parseFrom(it.value()));
      }
    } catch (InvalidProtocolBufferException e) {
      throw new AssertionError(e);
    }
    return out;
  }

  /** The pending count of {@code topic} as stored (readable from any thread, unlike the state machine's cache). */
  long pending(String topic) {
    byte[] bytes = store.get(Space.INDEX, StorageKeys.topicMeta(topic));
    try {
      return bytes == null ? 0 : TopicMeta.parseFrom(bytes).getPending();
    } catch (InvalidProtocolBufferException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Whether {@code group} of {@code topic} is registered in the store. */
  boolean hasGroup(String topic, String group) {
    return store.get(Space.INDEX, StorageKeys.group(topic, group)) != null;
  }

  @Override
  public void close() {
    stop();
  }

  private void announced(long index, CommandResult result) {
    announcedIndexes.add(index);
    if (result instanceof CommandResult.Stored stored) {
      stored.messages().forEach(ref -> announcedEventIds.add(ref.message().getEventId()));
    }
  }
}
