package io.futureq.log.raft;

import static io.futureq.log.Commands.message;
import static io.futureq.log.Commands.store;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.log.Barrier;
import io.futureq.log.CommandResult;
import io.futureq.log.CommandResultCodec;
import io.futureq.log.EventLog;
import io.futureq.log.TestLog;
import io.futureq.log.proto.ApplyResults;
import io.futureq.log.proto.LeaderEntry;
import io.futureq.log.proto.LogCommand;
import io.futureq.log.proto.LogEntry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.StateMachineLogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a replica's apply answers with. A client's command (a replica's barrier) gets its results encoded, on every
 * replica, since Ratis keeps each replica's reply for a client that sends its request again to the next leader. A
 * write leader's entry is only ever submitted in-process, so a replica that applies it without the submission
 * (a follower) encodes nothing: that encoding was a third of a follower's apply thread.
 */
class RatisStateMachineRepliesTest {
  private static final String TOPIC = "orders";

  @TempDir
  Path dir;

  private TestLog testLog;
  private RatisStateMachine replica;
  private long index;

  @BeforeEach
  void open() {
    testLog = TestLog.open(dir, 1000);
    EventLog.AppliedListener quiet = (appliedIndex, result) -> { };
    replica = new RatisStateMachine(0, testLog.store(), testLog.stateMachine(), quiet, nanos -> { }, e -> { },
        new LeaderSubmit(null, RaftServerFactory.GROUP_ID, Duration.ofSeconds(1)));
  }

  @AfterEach
  void close() {
    testLog.close();
  }

  private Message apply(LogCommand command) throws Exception {
    byte[] data = LogEntry.newBuilder().addCommands(command).build().toByteArray();
    LogEntryProto entry = LogEntryProto.newBuilder().setTerm(1).setIndex(++index)
        .setStateMachineLogEntry(StateMachineLogEntryProto.newBuilder().setLogData(ByteString.copyFrom(data)))
        .build();
    TransactionContext trx = TransactionContext.newBuilder().setStateMachine(replica).setLogEntry(entry).build();
    return replica.applyTransaction(trx).get();
  }

  @Test
  void aClientsCommandGetsItsResultsEncoded() throws Exception {
    Message reply = apply(Barrier.COMMAND);

    List<CommandResult> results = CommandResultCodec.decode(ApplyResults.parseFrom(
        reply.getContent().asReadOnlyByteBuffer()));
    assertEquals(1, results.size());
    assertEquals(index, ((CommandResult.JournalWritten) results.get(0)).logIndex());
  }

  @Test
  void aWriteLeadersEntryAppliedWithoutItsSubmissionIsAnsweredWithNothing() throws Exception {
    LogCommand entry = LogCommand.newBuilder().setLeaderEntry(LeaderEntry.newBuilder().setTerm(1)
        .addCommands(store(message(TOPIC, "a", 0), message(TOPIC, "b", 0)))).build();

    Message reply = apply(entry);

    assertTrue(reply.getContent().isEmpty(), "a follower encoded results nobody reads");
    assertEquals(2, testLog.messagesOf(TOPIC).size(), "the entry was applied");
  }
}
