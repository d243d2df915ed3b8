package io.futureq.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.futureq.log.proto.StoredMessage;
import io.futureq.storage.StorageKeys;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class InFlightTableTest {

  @Test
  void entriesAreFoundAndRemovedBySequenceNumber() {
    InFlightTable<String> table = new InFlightTable<>();
    InFlightTable.Entry<String> entry = entry(7, "a", 1_000);
    table.add(entry);

    assertSame(entry, table.get(7));
    assertNull(table.get(8));
    assertSame(entry, table.remove(7));
    assertNull(table.remove(7));
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
    table.remove(1);

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
    InFlightTable.Entry<String> entry = new InFlightTable.Entry<>(4, message(4), 3, "a", 500);
    table.add(entry);

    InFlightTable.Entry<String> back = table.removeExpired(500).get(0);

    assertEquals(3, back.attempt());
    assertEquals("a", back.consumer());
    assertSame(entry.message(), back.message());
  }

  private static InFlightTable.Entry<String> entry(long seq, String consumer, long deadlineMs) {
    return new InFlightTable.Entry<>(seq, message(seq), 1, consumer, deadlineMs);
  }

  private static DueMessage message(long eventId) {
    return new DueMessage(StorageKeys.message(StorageKeys.topicHash("orders"), 1, eventId),
        StoredMessage.newBuilder().setTopic("orders").setEventId(eventId).build());
  }

  private static List<Long> seqs(List<InFlightTable.Entry<String>> entries) {
    return entries.stream().map(InFlightTable.Entry::seq).collect(Collectors.toList());
  }
}
