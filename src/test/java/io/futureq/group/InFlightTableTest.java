package io.futureq.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.futureq.log.proto.StoredMessage;
import io.futureq.storage.StorageKeys;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class InFlightTableTest {

  @Test
  void removeRangeTakesOnlyThatConsumersTagsInTheRange() {
    InFlightTable<String> table = new InFlightTable<>();
    table.add(entry(1, "a", 100));
    table.add(entry(2, "a", 200));
    table.add(entry(3, "a", 300));
    table.add(entry(2, "b", 400));

    assertEquals(List.of(2L, 3L), seqs(table.removeRange("a", 2, 9)));
    assertEquals(List.of(), seqs(table.removeRange("a", 2, 3)));
    assertEquals(2, table.size());
    assertEquals(List.of(2L), seqs(table.removeRange("b", 1, 2)));
    assertEquals(100, table.earliestDeadline());
  }

  @Test
  void aLongWindowWithHolesKeepsItsOrderWhenItGrows() {
    InFlightTable<String> table = new InFlightTable<>();
    for (long tag = 1; tag <= 100; tag++) {
      table.add(entry(tag, "a", tag * 10));
    }
    assertEquals(98, table.removeRange("a", 2, 99).size());
    for (long tag = 101; tag <= 150; tag++) {
      table.add(entry(tag, "a", tag * 10));
    }

    assertEquals(52, table.size());
    assertEquals(10, table.earliestDeadline());
    assertEquals(List.of(1L, 100L, 101L), seqs(table.removeExpired(1_010)));
    assertEquals(1_020, table.earliestDeadline());
    assertEquals(49, table.removeConsumer("a").size());
    assertEquals(0, table.size());
  }

  @Test
  void removeExpiredTakesEveryEntryDueAtOrBeforeNowInOrder() {
    InFlightTable<String> table = new InFlightTable<>();
    table.add(entry(1, "a", 100));
    table.add(entry(2, "b", 200));
    table.add(entry(3, "a", 300));

    assertEquals(List.of(), seqs(table.removeExpired(99)));
    assertEquals(List.of(1L, 2L), seqs(table.removeExpired(200)));
    assertEquals(1, table.size());
    assertEquals(300, table.earliestDeadline());
  }

  @Test
  void removeExpiredSkipsEntriesAlreadySettled() {
    InFlightTable<String> table = new InFlightTable<>();
    table.add(entry(1, "a", 100));
    table.add(entry(2, "a", 200));
    table.removeRange("a", 1, 1);

    assertEquals(200, table.earliestDeadline());
    assertEquals(List.of(2L), seqs(table.removeExpired(1_000)));
  }

  @Test
  void removeConsumerTakesOnlyThatConsumersEntriesInDeliveryOrder() {
    InFlightTable<String> table = new InFlightTable<>();
    table.add(entry(1, "a", 100));
    table.add(entry(2, "b", 200));
    table.add(entry(3, "a", 300));

    List<InFlightTable.Entry<String>> held = table.removeConsumer("a");

    assertEquals(List.of(1L, 3L), seqs(held));
    assertEquals(1, table.size());
    assertEquals(200, table.earliestDeadline());
    assertEquals(List.of(), table.removeConsumer("a"));
  }

  @Test
  void earliestDeadlineOfAnEmptyTableIsMaxValue() {
    InFlightTable<String> table = new InFlightTable<>();
    assertEquals(Long.MAX_VALUE, table.earliestDeadline());

    table.add(entry(1, "a", 100));
    table.removeExpired(100);

    assertEquals(Long.MAX_VALUE, table.earliestDeadline());
  }

  @Test
  void entryKeepsItsMessageAndAttempt() {
    InFlightTable<String> table = new InFlightTable<>();
    InFlightTable.Entry<String> entry = new InFlightTable.Entry<>("a", 4, message(4), 3, 500);
    table.add(entry);

    InFlightTable.Entry<String> back = table.removeExpired(500).get(0);

    assertEquals(3, back.attempt);
    assertEquals("a", back.consumer);
    assertSame(entry.message, back.message);
  }

  private static InFlightTable.Entry<String> entry(long seq, String consumer, long deadlineMs) {
    return new InFlightTable.Entry<>(consumer, seq, message(seq), 1, deadlineMs);
  }

  private static DueMessage message(long eventId) {
    return new DueMessage(StorageKeys.message(StorageKeys.topicHash("orders"), 1, eventId),
        StoredMessage.newBuilder().setTopic("orders").setEventId(eventId).build());
  }

  private static List<Long> seqs(List<InFlightTable.Entry<String>> entries) {
    return entries.stream().map(e -> e.tag).collect(Collectors.toList());
  }
}
