package io.futureq.bench;

import com.google.protobuf.ByteString;
import io.futureq.config.StorageSettings;
import io.futureq.log.BrokerStateMachine;
import io.futureq.log.CommandResult;
import io.futureq.log.proto.CreateGroup;
import io.futureq.log.proto.DeleteBatch;
import io.futureq.log.proto.GroupAck;
import io.futureq.log.proto.LogCommand;
import io.futureq.log.proto.NewMessage;
import io.futureq.log.proto.StoreBatch;
import io.futureq.storage.RocksStore;
import io.futureq.storage.StorageKeys;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * JMH: the hot paths below the gRPC edge. {@code apply100} prepares and commits one 100-message
 * StoreBatch (100-byte payloads) without fsync, so it measures CPU and RocksDB memtable cost;
 * {@code ack100} does the same for the DeleteBatch of one group's acks of 100 such messages (stored
 * before each call, outside the measured time); {@code messageKey} is the 24-byte key codec.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class StateMachineBenchmark {
  @Param({"false", "true"})
  public boolean keyed;

  private RocksStore store;
  private BrokerStateMachine stateMachine;
  private long index;
  private long counter;
  /** The DeleteBatch acking the messages the last {@link #storeForAck} stored. */
  private LogCommand acks;

  @Setup
  public void setUp() throws Exception {
    Path dir = Files.createTempDirectory("sm-bench");
    store = RocksStore.open(dir, StorageSettings.defaults(dir));
    stateMachine = new BrokerStateMachine(store, 1);
    commit(LogCommand.newBuilder().setCreateGroup(CreateGroup.newBuilder().setTopic("bench")
        .setGroup("g")).build());
  }

  @TearDown
  public void tearDown() {
    store.close();
  }

  @Benchmark
  public Object apply100() {
    return commit(storeBatch());
  }

  @Setup(Level.Invocation)
  public void storeForAck() {
    BrokerStateMachine.Prepared stored = commit(storeBatch());
    DeleteBatch.Builder delete = DeleteBatch.newBuilder();
    for (CommandResult.StoredRef ref : ((CommandResult.Stored) stored.results().get(0)).messages()) {
      delete.addAcks(GroupAck.newBuilder().setTopic("bench").setGroup("g")
          .setStorageKey(ByteString.copyFrom(ref.storageKey())));
    }
    acks = LogCommand.newBuilder().setDelete(delete).build();
  }

  @Benchmark
  public Object ack100() {
    return commit(acks);
  }

  private BrokerStateMachine.Prepared commit(LogCommand command) {
    BrokerStateMachine.Prepared p = stateMachine.prepare(++index, List.of(command));
    store.commit(p.batch(), false);
    stateMachine.committed(p);
    return p;
  }

  private LogCommand storeBatch() {
    long now = System.currentTimeMillis();
    StoreBatch.Builder batch = StoreBatch.newBuilder().setEnqueuedMs(now);
    for (int i = 0; i < 100; i++) {
      NewMessage.Builder m = NewMessage.newBuilder().setTopic("bench").setPayload(ByteString.copyFrom(new byte[100]))
          .setDueMs(now + 1000 + (counter % 4000));
      if (keyed) {
        m.setKey("key-" + counter);
      }
      counter++;
      batch.addMessages(m);
    }
    return LogCommand.newBuilder().setStore(batch).build();
  }

  @Benchmark
  public byte[] messageKey() {
    counter++;
    return StorageKeys.message(StorageKeys.topicHash("orders.timeout"), counter, counter);
  }
}
