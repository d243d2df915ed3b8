package io.futureq.log.raft;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.SnapshotRetentionPolicy;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.impl.FileListSnapshotInfo;

/**
 * Snapshots as RocksDB checkpoints, one directory {@code checkpoint.<term>_<index>} each in the
 * Raft state machine directory. Ratis sends a snapshot's files to a lagging follower and, when the
 * last one arrived, replaces the follower's whole state machine directory with them; the follower
 * then finds the checkpoint here by its name.
 *
 * <p>A checkpoint named {@code <index>} holds the store at that index or later: the name is what
 * Raft was told; the store's own applied index, inside the checkpoint, is exact.
 */
final class CheckpointStorage implements StateMachineStorage {
  /** Snapshots kept when Ratis passes no retention policy; two, so one can be sent while the next is taken. */
  static final int DEFAULT_RETAINED = 2;
  private static final Pattern NAME = Pattern.compile("checkpoint\\.(\\d+)_(\\d+)");
  /** Written by Ratis beside each installed file; not part of the checkpoint. */
  private static final String DIGEST_SUFFIX = ".md5";

  /** One checkpoint directory and the term and index it is named by. */
  record Checkpoint(Path dir, TermIndex termIndex) {
    long index() {
      return termIndex.getIndex();
    }
  }

  private final AtomicReference<Checkpoint> latest = new AtomicReference<>();
  private final AtomicReference<SnapshotInfo> latestInfo = new AtomicReference<>();
  private volatile Path dir;

  @Override
  public void init(RaftStorage raftStorage) throws IOException {
    dir = raftStorage.getStorageDir().getStateMachineDir().toPath();
    Files.createDirectories(dir);
    rescan();
  }

  /** Finds the newest checkpoint again, after Ratis replaced the directory with an installed snapshot. */
  void rescan() throws IOException {
    for (Path leftover : list(p -> p.getFileName().toString().endsWith(".tmp"))) {
      // RocksDB builds a checkpoint in <name>.tmp and renames it; a leftover means a crash midway.
      deleteRecursively(leftover);
    }
    List<Checkpoint> all = checkpoints();
    Checkpoint newest = all.isEmpty() ? null : all.get(0);
    latest.set(newest);
    latestInfo.set(newest == null ? null : info(newest));
  }

  /** The newest checkpoint, or null. */
  Checkpoint latest() {
    return latest.get();
  }

  /** Where the checkpoint at {@code termIndex} goes; it must not exist yet. */
  Path pathFor(TermIndex termIndex) {
    return dir.resolve("checkpoint." + termIndex.getTerm() + "_" + termIndex.getIndex());
  }

  /** Records a checkpoint just written to {@link #pathFor}. */
  void taken(TermIndex termIndex) throws IOException {
    Checkpoint checkpoint = new Checkpoint(pathFor(termIndex), termIndex);
    latestInfo.set(info(checkpoint));
    latest.set(checkpoint);
  }

  @Override
  public SnapshotInfo getLatestSnapshot() {
    return latestInfo.get();
  }

  @Override
  public void format() {
    // A new Raft storage starts without snapshots: nothing to prepare.
  }

  @Override
  public void cleanupOldSnapshots(SnapshotRetentionPolicy policy) throws IOException {
    int keep = policy == null || policy.getNumSnapshotsRetained() <= 0 ? DEFAULT_RETAINED
        : policy.getNumSnapshotsRetained();
    List<Checkpoint> all = checkpoints();
    for (Checkpoint old : all.subList(Math.min(keep, all.size()), all.size())) {
      deleteRecursively(old.dir());
    }
  }

  /** Every checkpoint, newest first. */
  private List<Checkpoint> checkpoints() throws IOException {
    List<Checkpoint> all = new ArrayList<>();
    for (Path path : list(Files::isDirectory)) {
      Matcher m = NAME.matcher(path.getFileName().toString());
      if (m.matches()) {
        all.add(new Checkpoint(path, TermIndex.valueOf(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)))));
      }
    }
    all.sort(Comparator.comparingLong(Checkpoint::index).reversed());
    return all;
  }

  private List<Path> list(Predicate<Path> filter) throws IOException {
    try (Stream<Path> paths = Files.list(dir)) {
      return paths.filter(filter).toList();
    }
  }

  private static SnapshotInfo info(Checkpoint checkpoint) throws IOException {
    List<FileInfo> files = new ArrayList<>();
    try (Stream<Path> paths = Files.walk(checkpoint.dir())) {
      for (Path file : paths.filter(Files::isRegularFile).toList()) {
        if (!file.getFileName().toString().endsWith(DIGEST_SUFFIX)) {
          // No digest: Ratis computes it while sending.
          files.add(new FileInfo(file, null));
        }
      }
    }
    return new FileListSnapshotInfo(files, checkpoint.termIndex());
  }

  private static void deleteRecursively(Path path) throws IOException {
    try (Stream<Path> paths = Files.walk(path)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
