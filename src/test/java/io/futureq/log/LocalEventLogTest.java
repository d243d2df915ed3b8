package io.futureq.log;

import static io.futureq.log.Commands.createGroup;
import static io.futureq.log.Commands.message;
import static io.futureq.log.Commands.store;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.log.proto.LogCommand;
import io.futureq.storage.OrderedStore;
import io.futureq.storage.StorageException;
import io.futureq.storage.StorageKeys;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalEventLogTest {
  private static final String TOPIC = "orders";

  @TempDir
  Path dir;

  private TestLog testLog;

  @BeforeEach
  void open() {
    testLog = TestLog.open(dir, 1000);
  }

  @AfterEach
  void close() {
    testLog.close();
  }

  @Test
  void appliesConcurrentAppendsInOrderWithOneIndexPerGroupCommit() throws Exception {
    List<CompletableFuture<CommandResult>> appends = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      appends.add(testLog.log().append(store(message(TOPIC, "m" + i, 0))).toCompletableFuture());
    }
    CompletableFuture.allOf(appends.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);

    long last = testLog.log().appliedIndex();
    List<Long> indexes = testLog.appliedIndexes();
    assertEquals(200, indexes.size());
    assertEquals(1, indexes.get(0));
    long previousEventId = 0;
    for (int i = 0; i < 200; i++) {
      long step = i == 0 ? 1 : indexes.get(i) - indexes.get(i - 1);
      assertTrue(step == 0 || step == 1, "indexes " + indexes);
      CommandResult result = appends.get(i).get();
      assertEquals(indexes.get(i), testLog.indexOf(result));
      long eventId = ((CommandResult.Stored) result).messages().get(0).message().getEventId();
      assertTrue(eventId > previousEventId, "append " + i + " applied out of order");
      previousEventId = eventId;
    }
    assertEquals(last, indexes.get(199));
    assertEquals(last, testLog.stateMachine().appliedIndex());
    try (OrderedStore.View view = testLog.store().view()) {
      assertEquals(last, BrokerStateMachine.appliedIndexIn(view));
    }
  }

  @Test
  void sequentialAppendsTakeOneIndexEachAndKeepItAcrossReopen() {
    testLog.apply(store(message(TOPIC, "a", 0)));
    testLog.apply(store(message(TOPIC, "b", 0)));
    assertEquals(List.of(1L, 2L), testLog.appliedIndexes());

    testLog.reopen();

    assertEquals(2, testLog.log().appliedIndex());
    assertEquals(2, testLog.stateMachine().appliedIndex());
    CommandResult next = testLog.apply(store(message(TOPIC, "c", 0)));
    assertEquals(3, testLog.indexOf(next));
  }

  @Test
  void aGroupCommitThatFailsToPrepareLeavesNoPendingCountOrGroupBehind() throws Exception {
    testLog.close();
    TrapStore[] trap = new TrapStore[1];
    testLog = TestLog.open(dir.resolve("trapped"), 1000, store -> trap[0] = new TrapStore(store));
    trap[0].failReadsOf(StorageKeys.messageKeyIndex(TOPIC, "unreadable"));
    trap[0].holdNextCommit();
    CompletableFuture<CommandResult> before = append(store(message(TOPIC, "before", 0)));
    trap[0].awaitHeldCommit();
    // Both queue behind the held commit, so they share the next group commit, whose prepare fails.
    CompletableFuture<CommandResult> phantom = append(createGroup(TOPIC, "phantom"));
    CompletableFuture<CommandResult> failing =
        append(store(message(TOPIC, "lost", 0), message(TOPIC, "bad", 0, "unreadable", 0, Map.of())));
    trap[0].releaseCommit();

    before.get(30, TimeUnit.SECONDS);
    for (CompletableFuture<CommandResult> failed : List.of(phantom, failing)) {
      ExecutionException e = assertThrows(ExecutionException.class, () -> failed.get(30, TimeUnit.SECONDS));
      assertTrue(e.getCause() instanceof StorageException, String.valueOf(e.getCause()));
    }
    testLog.apply(store(message(TOPIC, "after", 0)));

    assertEquals(List.of("before", "after"),
        testLog.messagesOf(TOPIC).stream().map(m -> m.getPayload().toStringUtf8()).toList());
    assertEquals(2, testLog.stateMachine().pending(TOPIC));
    CommandResult.GroupCreated retried = (CommandResult.GroupCreated) testLog.apply(createGroup(TOPIC, "phantom"));
    assertFalse(retried.existed(), "the failed CreateGroup must not have registered the group");
    assertEquals(List.of("phantom"), GroupRegistry.read(testLog.store(), TOPIC));
    testLog.reopen();
    assertEquals(2, testLog.stateMachine().pending(TOPIC));
  }

  @Test
  void appendsAfterCloseFailWithLogClosed() {
    testLog.log().close();

    ExecutionException e = assertThrows(ExecutionException.class, () -> testLog.log()
        .append(store(message(TOPIC, "a", 0))).toCompletableFuture().get(5, TimeUnit.SECONDS));

    assertTrue(e.getCause() instanceof LogClosedException, String.valueOf(e.getCause()));
  }

  private CompletableFuture<CommandResult> append(LogCommand command) {
    return testLog.log().append(command).toCompletableFuture();
  }
}
