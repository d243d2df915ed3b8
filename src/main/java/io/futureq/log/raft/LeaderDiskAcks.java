package io.futureq.log.raft;

import io.futureq.log.EventLog.LeaderAck;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;

/**
 * Tells a writer on this node when the entry it submitted is on the disk of this node's Raft log, while this node
 * leads: the answer of {@code ACK_LEVEL_LEADER}, which comes before a majority has the entry.
 *
 * <p>Ratis calls {@link #appending} (through the state machine) in log order, under its log's lock, as it appends an
 * entry this node submitted with a disk answer wanted; a poller completes the answer once the log's flush index has
 * passed it and the entry at that index is still the one of this term (an entry truncated by a later leader is
 * never acknowledged). Ratis has no callback after its log's fsync, hence the poll; it runs only while an answer
 * waits for a flush.
 */
final class LeaderDiskAcks implements AutoCloseable {
  /** How often the flush index is read while an answer waits: well below the log's fsync time. */
  static final long POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

  private record Appended(long term, long index, CompletableFuture<LeaderAck> answer) {}

  /** In index order: {@link #appending} is called in log order. */
  private final ConcurrentLinkedQueue<Appended> appended = new ConcurrentLinkedQueue<>();
  private final Thread poller = new Thread(this::poll, "futureq-leader-disk-acks");
  private volatile RaftLog log;
  private volatile boolean closed;

  LeaderDiskAcks() {
    poller.setDaemon(true);
    poller.start();
  }

  /** Ratis is about to append entry {@code index} of {@code term} to {@code raftLog}, as leader. */
  void appending(long index, long term, CompletableFuture<LeaderAck> answer, RaftLog raftLog) {
    log = raftLog;
    appended.add(new Appended(term, index, answer));
    LockSupport.unpark(poller);
  }

  private void poll() {
    while (!closed) {
      Appended next = appended.peek();
      if (next == null) {
        LockSupport.park(this);
        continue;
      }
      RaftLog raftLog = log;
      long flushed = raftLog.getFlushIndex();
      while (next != null && next.index() <= flushed) {
        appended.poll();
        TermIndex onDisk = raftLog.getTermIndex(next.index());
        if (onDisk != null && onDisk.getTerm() == next.term()) {
          // The entry holds one command, the writer's: its new messages start at slot 0.
          next.answer().complete(new LeaderAck(next.index(), 0));
        }
        next = appended.peek();
      }
      if (next != null) {
        LockSupport.parkNanos(this, POLL_NANOS);
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    LockSupport.unpark(poller);
  }
}
