package io.futureq.group;

import com.google.protobuf.ByteString;
import io.futureq.config.StorageSettings;
import io.futureq.log.BrokerStateMachine;
import io.futureq.log.proto.LogCommand;
import io.futureq.log.proto.NewMessage;
import io.futureq.log.proto.StoreBatch;
import io.futureq.storage.RocksStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/** JMH: reading one chunk of 512 due messages (100-byte payloads) from a topic of 100,000. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class DueReadBenchmark {
  private RocksStore store;
  private DueReader reader;
  private byte[] cursor;

  @Setup
  public void setUp() throws Exception {
    Path dir = Files.createTempDirectory("due-read-bench");
    store = RocksStore.open(dir, StorageSettings.defaults(dir));
    BrokerStateMachine sm = new BrokerStateMachine(store, 1);
    long due = System.currentTimeMillis() - 1_000_000;
    for (int b = 0; b < 1000; b++) {
      StoreBatch.Builder batch = StoreBatch.newBuilder().setEnqueuedMs(due);
      for (int i = 0; i < 100; i++) {
        batch.addMessages(NewMessage.newBuilder().setTopic("bench").setPayload(ByteString.copyFrom(new byte[100]))
            .setDueMs(due + b * 100L + i));
      }
      BrokerStateMachine.Prepared p = sm.prepare(b + 1, List.of(LogCommand.newBuilder().setStore(batch).build()));
      store.commit(p.batch(), false);
      sm.committed(p);
    }
    reader = new DueReader(store, 1);
  }

  @TearDown
  public void tearDown() {
    store.close();
  }

  @Benchmark
  public Object readChunkOf512() {
    long now = System.currentTimeMillis();
    DueReader.Chunk chunk = reader.read("bench", cursor, null, now, now, 512);
    cursor = chunk.full() ? chunk.lastKey() : null;
    return chunk;
  }
}
