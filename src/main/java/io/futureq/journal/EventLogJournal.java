package io.futureq.journal;

import com.google.protobuf.ByteString;
import com.typesafe.config.Config;
import io.futureq.log.Barrier;
import io.futureq.log.CommandResult;
import io.futureq.log.EventLog;
import io.futureq.log.leader.LeaderWrites;
import io.futureq.log.leader.LogLeader;
import io.futureq.log.proto.JournalDelete;
import io.futureq.log.proto.JournalEvent;
import io.futureq.log.proto.JournalWrite;
import io.futureq.log.proto.LogCommand;
import io.futureq.storage.OrderedStore;
import io.futureq.storage.OrderedStore.Space;
import io.futureq.storage.StorageKeys;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.dispatch.Futures;
import org.apache.pekko.persistence.AtomicWrite;
import org.apache.pekko.persistence.PersistentRepr;
import org.apache.pekko.persistence.journal.japi.AsyncWriteJournal;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import scala.concurrent.ExecutionContextExecutor;
import scala.concurrent.Future;
import scala.jdk.javaapi.CollectionConverters;
import scala.jdk.javaapi.FutureConverters;

/**
 * A Pekko Persistence journal whose writes are {@link EventLog} commands, so events get the log's durability:
 * group-committed fsync in standalone mode, Raft replication in clustered mode. It adds no storage engine: the
 * state machine stores events in the node's {@link OrderedStore}, from which replays read.
 *
 * <p>Contract (Pekko's): each AtomicWrite is stored whole or not at all; one whose events cannot be serialized (or
 * whose persistence id contains 0x00) is rejected and the others of the batch are still written; a failed append
 * fails the whole batch. A delete never lowers the highest sequence number.
 *
 * <p>Reads are linearizable on any node: before reading the highest sequence number (which Pekko's recovery does
 * before every replay) the journal appends an empty write as a barrier and waits, without blocking, until this
 * node's replica has applied it. A replica that is the leader, or a standalone log, has applied it already. The
 * write leader's recovery waits for {@link EventLog#readyToLead} instead.
 *
 * <p>The write leaders ({@link LogLeader}, one persistence id per log shard and Raft term) are the one exception:
 * see {@link LeaderEntries}; each writes to its own shard's log.
 * Every other actor's writes go through the binding's writer, i.e. through that leader.
 */
public final class EventLogJournal extends AsyncWriteJournal {
  private final JournalBackend backend;
  private final LeaderWrites leaderWrites;
  private final Serialization serialization;
  private final Duration applyTimeout;
  /** Where reads of the store run: replays and the highest sequence number block on RocksDB. */
  private final ExecutionContextExecutor executor;

  public EventLogJournal(Config config) {
    this.backend = JournalBackend.get(Adapter.toTyped(context().system()));
    this.leaderWrites = LeaderWrites.get(Adapter.toTyped(context().system()));
    this.serialization = SerializationExtension.get(context().system());
    this.applyTimeout = config.getDuration("apply-timeout");
    this.executor = context().system().dispatchers().lookup(config.getString("read-dispatcher"));
  }

  @Override
  public Future<Iterable<Optional<Exception>>> doAsyncWriteMessages(Iterable<AtomicWrite> messages) {
    List<CompletableFuture<Optional<Exception>>> outcomes = new ArrayList<>();
    List<CompletableFuture<Optional<Exception>>> stored = new ArrayList<>();
    JournalWrite.Builder write = JournalWrite.newBuilder();
    for (AtomicWrite atomic : messages) {
      if (LeaderEntries.isLeader(atomic.persistenceId())) {
        outcomes.add(LeaderEntries.write(backend.bound(LogLeader.shardOf(atomic.persistenceId())).log(), leaderWrites,
            atomic).toCompletableFuture());
        continue;
      }
      try {
        write.addAllEvents(encode(atomic));
        CompletableFuture<Optional<Exception>> outcome = new CompletableFuture<>();
        outcomes.add(outcome);
        stored.add(outcome);
      } catch (Exception e) {
        outcomes.add(CompletableFuture.completedFuture(Optional.of(e)));
      }
    }
    if (write.getEventsCount() > 0) {
      // One command for all of them: a failed append fails the batch, as Pekko's contract asks.
      CompletableFuture<CommandResult> appended = append(LogCommand.newBuilder().setJournalWrite(write))
          .toCompletableFuture();
      appended.whenComplete((result, failure) -> stored.forEach(outcome -> {
        if (failure == null) {
          outcome.complete(Optional.empty());
        } else {
          outcome.completeExceptionally(failure);
        }
      }));
    }
    CompletableFuture<Iterable<Optional<Exception>>> all = CompletableFuture.allOf(
        outcomes.toArray(CompletableFuture[]::new)).thenApply(done -> {
          List<Optional<Exception>> list = new ArrayList<>(outcomes.size());
          outcomes.forEach(outcome -> list.add(outcome.join()));
          return list;
        });
    return FutureConverters.asScala(all);
  }

  @Override
  public Future<Void> doAsyncDeleteMessagesTo(String persistenceId, long toSequenceNr) {
    if (LeaderEntries.isLeader(persistenceId)) {
      return Futures.successful(null); // its events are the log itself, compacted by Raft snapshots
    }
    LogCommand.Builder delete = LogCommand.newBuilder().setJournalDelete(JournalDelete.newBuilder()
        .setPersistenceId(persistenceId).setToSequenceNr(toSequenceNr));
    return FutureConverters.asScala(append(delete).thenApply(result -> (Void) null));
  }

  /** Pekko calls it after {@link #doAsyncReadHighestSequenceNr}, whose barrier covers this read too. */
  @Override
  public Future<Void> doAsyncReplayMessages(String persistenceId, long fromSequenceNr, long toSequenceNr, long max,
      Consumer<PersistentRepr> replayCallback) {
    if (LeaderEntries.isLeader(persistenceId)) {
      return Futures.successful(null); // its events are the log, replayed into the store, not into the leader
    }
    return FutureConverters.asScala(CompletableFuture.supplyAsync(() -> {
      replay(persistenceId, fromSequenceNr, toSequenceNr, max, replayCallback);
      return null;
    }, executor));
  }

  @Override
  public Future<Long> doAsyncReadHighestSequenceNr(String persistenceId, long fromSequenceNr) {
    if (LeaderEntries.isLeader(persistenceId)) {
      // Each term's leader is a persistent actor of its own, numbered from 1: Raft's term and index order its
      // entries. It recovers once its replica may lead (a Raft leader: the first entry of its term applied), so that
      // its first write is not refused as too early.
      return FutureConverters.asScala(backend.bound(LogLeader.shardOf(persistenceId)).log().readyToLead(applyTimeout)
          .thenApply(applied -> 0L));
    }
    CompletionStage<Long> caughtUp = Barrier.applied(backend.bound().writer(), backend.bound().log(), applyTimeout);
    CompletionStage<Long> highest = caughtUp
        .thenApplyAsync(applied -> {
          byte[] value = backend.bound().store().get(Space.INDEX, StorageKeys.journalHighest(persistenceId));
          return value == null ? 0L : ByteBuffer.wrap(value).getLong();
        }, executor);
    return FutureConverters.asScala(highest);
  }

  private List<JournalEvent> encode(AtomicWrite atomic) {
    String persistenceId = atomic.persistenceId();
    if (persistenceId.indexOf('\0') >= 0) {
      throw new IllegalArgumentException("persistence id " + persistenceId + " contains the character 0x00");
    }
    List<JournalEvent> events = new ArrayList<>(atomic.size());
    for (PersistentRepr repr : CollectionConverters.asJava(atomic.payload())) {
      byte[] bytes = serialization.serialize(repr).get();
      events.add(JournalEvent.newBuilder().setPersistenceId(persistenceId).setSequenceNr(repr.sequenceNr())
          .setPayload(ByteString.copyFrom(bytes)).build());
    }
    return events;
  }

  private CompletionStage<CommandResult> append(LogCommand.Builder command) {
    try {
      return backend.bound().writer().append(command.build());
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private void replay(String persistenceId, long from, long to, long max, Consumer<PersistentRepr> callback) {
    byte[] end = to == Long.MAX_VALUE ? StorageKeys.prefixEnd(StorageKeys.journalEventPrefix(persistenceId))
        : StorageKeys.journalEvent(persistenceId, to + 1);
    long replayed = 0;
    try (OrderedStore.View view = backend.bound().store().view(); OrderedStore.RangeIterator it =
        view.range(Space.INDEX, StorageKeys.journalEvent(persistenceId, Math.max(0, from)), end)) {
      for (; it.valid() && replayed < max; it.next(), replayed++) {
        PersistentRepr repr = serialization.deserialize(it.value(), PersistentRepr.class).get();
        callback.accept(repr);
      }
    }
  }
}
