package io.futureq.topic;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.log.CommandResult;
import io.futureq.log.EventLog;
import io.futureq.log.proto.LogCommand;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

/** A hand-off waits for every write the topic sent: settled only once each is answered, failed ones included. */
class InFlightWritesTest {
  /** A log whose appends are answered when the test says. */
  private static final class HeldLog implements EventLog {
    final List<CompletableFuture<CommandResult>> held = new ArrayList<>();

    @Override
    public CompletionStage<CommandResult> append(LogCommand command) {
      CompletableFuture<CommandResult> answer = new CompletableFuture<>();
      held.add(answer);
      return answer;
    }

    @Override
    public long appliedIndex() {
      return 0;
    }

    @Override
    public CompletionStage<Long> whenApplied(long index) {
      return new CompletableFuture<>();
    }

    @Override
    public void close() {}
  }

  @Test
  void settledOnlyOnceEveryWriteSentBeforeIsAnswered() {
    HeldLog log = new HeldLog();
    InFlightWrites writes = new InFlightWrites(log);
    assertTrue(writes.settled().isDone(), "nothing in flight");
    writes.append(LogCommand.getDefaultInstance());
    writes.append(LogCommand.getDefaultInstance());
    CompletableFuture<Void> settled = writes.settled();
    assertFalse(settled.isDone());
    log.held.get(0).completeExceptionally(new IllegalStateException("refused"));
    assertFalse(settled.isDone(), "one write still on its way");
    writes.append(LogCommand.getDefaultInstance()); // sent after the hand-off began: not waited for
    log.held.get(1).complete(null);
    assertTrue(settled.isDone());
    assertFalse(writes.settled().isDone(), "the later write is in flight");
  }
}
