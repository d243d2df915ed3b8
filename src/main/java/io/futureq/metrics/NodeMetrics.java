package io.futureq.metrics;

import com.sun.management.OperatingSystemMXBean;
import com.sun.management.UnixOperatingSystemMXBean;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import kamon.Kamon;

/**
 * The node's own gauges, there from start-up whatever the traffic: the build, the JVM and the process, the store
 * (RocksDB's sizes and stalls, its file system's free space) and, clustered, each log shard's replica's view of Raft
 * (one series per shard, label {@code shard}). One
 * daemon thread samples them at once and then every Kamon tick, so a scrape shows values at most a tick old, and
 * runs the other samplers it is given after them. What each means is its HELP text.
 */
public final class NodeMetrics implements AutoCloseable {
  /** What this node's replica of log shard {@code shard} knows now; see {@code RaftStatus}. */
  public record RaftView(int shard, long term, long commitIndex, long appliedIndex, boolean leading,
      String leaderId) {}

  private static final double NANOS = 1e9;
  private static final double MILLIS = 1e3;
  /** Longest a sample in progress may hold up close (a store read). */
  private static final Duration SAMPLE_WAIT = Duration.ofSeconds(5);

  private final Supplier<Map<String, Long>> storeStats;
  private final Supplier<List<RaftView>> raft;
  private final Path dataDir;
  private final List<Runnable> alsoSampled;
  private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "futureq-metrics-sampler");
    t.setDaemon(true);
    return t;
  });
  /** By shard: the leader the last sample saw, to count changes; confined to the sampler thread. */
  private final Map<Integer, String> lastLeader = new HashMap<>();
  private final Map<Integer, Long> leaderChanges = new HashMap<>();

  private NodeMetrics(Supplier<Map<String, Long>> storeStats, Supplier<List<RaftView>> raft, Path dataDir,
      List<Runnable> alsoSampled) {
    this.storeStats = storeStats;
    this.raft = raft;
    this.dataDir = dataDir;
    this.alsoSampled = List.copyOf(alsoSampled);
  }

  /**
   * Sets the build gauge and starts sampling every {@code every}.
   *
   * @param storeStats the store's engine figures by RocksDB property name (empty for the memory engine)
   * @param raft each log shard's replica's view, or null standalone (no Raft gauges then)
   * @param dataDir the store's directory, whose file system's free space is sampled; null for the memory engine
   * @param alsoSampled other samplers run on the same thread and tick (a failure of one skips the rest of it)
   */
  public static NodeMetrics start(Supplier<Map<String, Long>> storeStats, Supplier<List<RaftView>> raft, Path dataDir,
      Duration every, List<Runnable> alsoSampled) {
    Kamon.gauge("futureq.build.info", "Always 1; the version label is the running broker's version.")
        .withTag("version", version()).update(1);
    NodeMetrics metrics = new NodeMetrics(storeStats, raft, dataDir, alsoSampled);
    metrics.sampler.scheduleAtFixedRate(metrics::sampleQuietly, 0, every.toMillis(), TimeUnit.MILLISECONDS);
    return metrics;
  }

  /** The version in the broker jar's manifest, or "dev" when run from classes. */
  public static String version() {
    return Objects.requireNonNullElse(NodeMetrics.class.getPackage().getImplementationVersion(), "dev");
  }

  private void sampleQuietly() {
    quietly(this::sample);
    alsoSampled.forEach(NodeMetrics::quietly);
  }

  private static void quietly(Runnable sampler) {
    try {
      sampler.run();
    } catch (RuntimeException e) {
      // A failed sample (a store closing under it) leaves the last values; the next tick tries again.
    }
  }

  private void sample() {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    gauge("futureq.jvm.heap.used.bytes", "Heap in use, bytes.", memory.getHeapMemoryUsage().getUsed());
    gauge("futureq.jvm.heap.max.bytes", "Most heap the JVM may use (-Xmx), bytes.",
        memory.getHeapMemoryUsage().getMax());
    gauge("futureq.jvm.nonheap.used.bytes", "Non-heap memory in use (metaspace, code cache), bytes.",
        memory.getNonHeapMemoryUsage().getUsed());
    gauge("futureq.jvm.threads", "Live JVM threads.", ManagementFactory.getThreadMXBean().getThreadCount());
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      Kamon.gauge("futureq.jvm.gc.collections", "Collections by this collector since start-up.")
          .withTag("collector", gc.getName()).update(gc.getCollectionCount());
      Kamon.gauge("futureq.jvm.gc.time.seconds", "Time this collector spent collecting since start-up, seconds.")
          .withTag("collector", gc.getName()).update(gc.getCollectionTime() / MILLIS);
    }
    if (ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os) {
      gauge("futureq.process.cpu.seconds", "CPU time of the broker process since start-up (user and system), "
          + "seconds.", os.getProcessCpuTime() / NANOS);
      if (os instanceof UnixOperatingSystemMXBean unix) {
        gauge("futureq.process.open.fds", "Open file descriptors of the broker process.",
            unix.getOpenFileDescriptorCount());
        gauge("futureq.process.max.fds", "Most file descriptors the broker process may open.",
            unix.getMaxFileDescriptorCount());
      }
    }
    gauge("futureq.process.uptime.seconds", "Seconds since the broker's JVM started.",
        ManagementFactory.getRuntimeMXBean().getUptime() / MILLIS);
    sampleStore(storeStats.get());
    if (dataDir != null) {
      sampleDisk();
    }
    if (raft != null) {
      raft.get().forEach(this::sampleRaft);
    }
  }

  private static void sampleStore(Map<String, Long> stats) {
    store(stats, "rocksdb.estimate-live-data-size", "futureq.storage.live.data.bytes",
        "RocksDB's estimate of the live data in the store, bytes.");
    store(stats, "rocksdb.total-sst-files-size", "futureq.storage.sst.files.bytes",
        "Size of the store's SST files on disk, bytes.");
    store(stats, "rocksdb.cur-size-all-mem-tables", "futureq.storage.memtables.bytes",
        "Size of the store's memtables, bytes.");
    store(stats, "rocksdb.estimate-pending-compaction-bytes", "futureq.storage.pending.compaction.bytes",
        "Bytes RocksDB estimates compaction must rewrite to settle the store's levels.");
    store(stats, "rocksdb.num-running-compactions", "futureq.storage.running.compactions",
        "Compactions running in the store now.");
    store(stats, "rocksdb.is-write-stopped", "futureq.storage.write.stopped",
        "1 while RocksDB stops writes to the store (a write stall), else 0.");
    store(stats, "rocksdb.actual-delayed-write-rate", "futureq.storage.delayed.write.rate",
        "Bytes per second RocksDB slows writes to while it delays them (a soft stall), 0 when it does not.");
  }

  private void sampleDisk() {
    try {
      FileStore disk = Files.getFileStore(dataDir);
      gauge("futureq.storage.disk.free.bytes", "Bytes free for the broker on the file system of its data directory "
          + "(futureq.storage.data-dir).", disk.getUsableSpace());
      gauge("futureq.storage.disk.size.bytes", "Size of the file system of the broker's data directory, bytes.",
          disk.getTotalSpace());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the file system of " + dataDir, e);
    }
  }

  private static void store(Map<String, Long> stats, String property, String name, String help) {
    Long value = stats.get(property);
    if (value != null) {
      gauge(name, help, value);
    }
  }

  private void sampleRaft(RaftView view) {
    String shard = Integer.toString(view.shard());
    shardGauge("futureq.raft.term", "This replica's current Raft term, per log shard.", shard, view.term());
    shardGauge("futureq.raft.commit.index", "The last Raft log index this replica knows to be committed, per log "
        + "shard.", shard, view.commitIndex());
    shardGauge("futureq.raft.applied.index", "The last Raft log index applied to this replica's store, per log "
        + "shard.", shard, view.appliedIndex());
    shardGauge("futureq.raft.apply.lag", "Committed entries this replica has not applied yet, per log shard.", shard,
        Math.max(0, view.commitIndex() - view.appliedIndex()));
    shardGauge("futureq.raft.leader", "1 while this replica leads the log shard's Raft group, else 0.", shard,
        view.leading() ? 1 : 0);
    String leader = view.leaderId();
    if (leader != null && !leader.isEmpty()) {
      String last = lastLeader.put(view.shard(), leader);
      if (last != null && !last.equals(leader)) {
        leaderChanges.merge(view.shard(), 1L, Long::sum);
      }
    }
    shardGauge("futureq.raft.leader.changes", "Changes of the log shard's Raft leader this node saw since it started "
        + "(sampled every tick: two within one tick count once).", shard,
        leaderChanges.getOrDefault(view.shard(), 0L));
  }

  private static void shardGauge(String name, String help, String shard, double value) {
    Kamon.gauge(name, help).withTag("shard", shard).update(value);
  }

  private static void gauge(String name, String help, double value) {
    Kamon.gauge(name, help).withoutTags().update(value);
  }

  @Override
  /** Stops sampling, then closes the other samplers that are {@link AutoCloseable} (once none of them runs). */
  public void close() {
    sampler.shutdownNow();
    try {
      sampler.awaitTermination(SAMPLE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (Runnable other : alsoSampled) {
      if (other instanceof AutoCloseable closeable) {
        quietly(() -> {
          try {
            closeable.close();
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
      }
    }
  }
}
