package io.futureq.log.raft;

import com.google.protobuf.InvalidProtocolBufferException;
import io.futureq.log.EventIds;
import io.futureq.log.EventLog.LeaderAck;
import io.futureq.log.proto.LogCommand;
import io.futureq.log.proto.LogEntry;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;

/**
 * Tells this node's write leader when an entry it wrote is on the disk of this node's Raft log, while this node
 * leads: the answer of {@code ACK_LEVEL_LEADER}, which comes before a majority has the entry.
 *
 * <p>The leader asks for the entry of its leader sequence number ({@link #await}); when this replica, as Raft
 * leader, appends an entry holding that leader entry (Ratis calls {@link #appending} in log order, under its log's
 * lock), the entry's index and the leader entry's first slot are noted, and a poller completes the answer once the
 * log's flush index has passed it and the entry at that index is still the one of this term (an entry truncated by
 * a later leader is never acknowledged). Ratis has no callback after its log's fsync, hence the poll; it runs only
 * while an answer waits for a flush.
 */
public final class LeaderDiskAcks implements AutoCloseable {
  /** How often the flush index is read while an answer waits: well below the log's fsync time. */
  static final long POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

  private record Appended(long term, LeaderAck at, CompletableFuture<LeaderAck> answer) {}

  private final ConcurrentHashMap<Long, CompletableFuture<LeaderAck>> awaited = new ConcurrentHashMap<>();
  /** In index order: {@link #appending} is called in log order. */
  private final ConcurrentLinkedQueue<Appended> appended = new ConcurrentLinkedQueue<>();
  private final Thread poller = new Thread(this::poll, "futureq-leader-disk-acks");
  private volatile RaftLog log;
  private volatile boolean closed;

  LeaderDiskAcks() {
    poller.setDaemon(true);
    poller.start();
  }

  /**
   * Completes once this node's Raft log has on disk the entry carrying leader entry {@code sequenceNr}, appended
   * as leader; never, if another node appends it. Call {@link #forget} once the write is answered anyway.
   */
  public CompletableFuture<LeaderAck> await(long sequenceNr) {
    CompletableFuture<LeaderAck> answer = new CompletableFuture<>();
    awaited.put(sequenceNr, answer);
    return answer;
  }

  /** The write of {@code sequenceNr} was answered: its disk answer is no longer needed. */
  public void forget(long sequenceNr) {
    awaited.remove(sequenceNr);
  }

  /** Whether a write waits to be told; {@link #appending} has nothing to do otherwise. */
  boolean awaiting() {
    return !awaited.isEmpty();
  }

  /**
   * Ratis is about to append {@code logData} as entry {@code index} of {@code term} to {@code raftLog}, as leader.
   * Cheap unless a write waits: only then is the entry read.
   */
  void appending(long index, long term, ByteBuffer logData, RaftLog raftLog) {
    if (awaited.isEmpty()) {
      return;
    }
    LogEntry entry;
    try {
      entry = LogEntry.parseFrom(logData);
    } catch (InvalidProtocolBufferException e) {
      return; // the state machine rejects it alike everywhere; nobody is told it is on disk
    }
    log = raftLog;
    int slot = 0;
    for (LogCommand command : entry.getCommandsList()) {
      if (command.getCommandCase() == LogCommand.CommandCase.LEADER_ENTRY) {
        CompletableFuture<LeaderAck> answer = awaited.remove(command.getLeaderEntry().getSequenceNr());
        if (answer != null) {
          appended.add(new Appended(term, new LeaderAck(index, slot), answer));
          LockSupport.unpark(poller);
        }
      }
      slot += EventIds.slotsOf(command);
    }
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
      while (next != null && next.at().logIndex() <= flushed) {
        appended.poll();
        TermIndex onDisk = raftLog.getTermIndex(next.at().logIndex());
        if (onDisk != null && onDisk.getTerm() == next.term()) {
          next.answer().complete(next.at());
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
