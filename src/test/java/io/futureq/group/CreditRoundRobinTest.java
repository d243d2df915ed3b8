package io.futureq.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CreditRoundRobinTest {

  @Test
  void takeServesConsumersInTurn() {
    CreditRoundRobin<String> rr = of("a", 10, "b", 10, "c", 10);

    assertEquals(List.of("a", "b", "c", "a", "b", "c", "a"), take(rr, 7));
  }

  @Test
  void takeSkipsConsumersWithoutCredit() {
    CreditRoundRobin<String> rr = of("a", 1, "b", 3);

    assertEquals(List.of("a", "b", "b", "b"), take(rr, 4));
    assertNull(rr.take());
    assertFalse(rr.anyCredit());
  }

  @Test
  void releaseGivesBackOneCreditToThatConsumer() {
    CreditRoundRobin<String> rr = of("a", 1, "b", 1);
    take(rr, 2);

    rr.release("b");

    assertTrue(rr.anyCredit());
    assertEquals("b", rr.take());
    assertNull(rr.take());
  }

  @Test
  void releaseNeverRaisesCreditAboveTheMaximum() {
    CreditRoundRobin<String> rr = of("a", 2);
    rr.release("a");
    rr.release("a");

    assertEquals(List.of("a", "a"), take(rr, 2));
    assertNull(rr.take());
  }

  @Test
  void releaseOfAnUnknownConsumerIsIgnored() {
    CreditRoundRobin<String> rr = of("a", 1);
    rr.take();

    rr.release("ghost");

    assertNull(rr.take());
  }

  @Test
  void takeResumesAfterTheLastConsumerServed() {
    CreditRoundRobin<String> rr = of("a", 1, "b", 1, "c", 1);
    assertEquals(List.of("a", "b", "c"), take(rr, 3));

    rr.release("a");
    rr.release("c");

    assertEquals("a", rr.take());
    assertEquals("c", rr.take());
  }

  @Test
  void removedConsumerIsNoLongerServed() {
    CreditRoundRobin<String> rr = of("a", 10, "b", 10);

    assertTrue(rr.remove("a"));
    assertFalse(rr.remove("a"));

    assertFalse(rr.contains("a"));
    assertEquals(1, rr.size());
    assertEquals(List.of("b", "b"), take(rr, 2));
  }

  @Test
  void removingAnEarlierConsumerKeepsTheTurnOfTheNextOne() {
    CreditRoundRobin<String> rr = of("a", 10, "b", 10, "c", 10);
    assertEquals(List.of("a", "b"), take(rr, 2));

    rr.remove("a");

    assertEquals(List.of("c", "b", "c"), take(rr, 3));
  }

  @Test
  void removingALaterConsumerKeepsTheTurnOfTheNextOne() {
    CreditRoundRobin<String> rr = of("a", 10, "b", 10, "c", 10);
    assertEquals(List.of("a"), take(rr, 1));

    rr.remove("c");

    assertEquals(List.of("b", "a", "b"), take(rr, 3));
  }

  @Test
  void removingTheLastConsumerLeavesItEmpty() {
    CreditRoundRobin<String> rr = of("a", 10, "b", 10);
    rr.take();
    rr.take();

    rr.remove("b");
    assertEquals("a", rr.take());
    rr.remove("a");

    assertTrue(rr.isEmpty());
    assertNull(rr.take());
    assertFalse(rr.anyCredit());
    assertTrue(rr.takeEach().isEmpty());
  }

  @Test
  void takeEachTakesOneCreditFromEveryConsumerThatHasOne() {
    CreditRoundRobin<String> rr = of("a", 1, "b", 2, "c", 1);

    assertEquals(List.of("a", "b", "c"), rr.takeEach());
    assertEquals(List.of("b"), rr.takeEach());
    assertEquals(List.of(), rr.takeEach());
  }

  @Test
  void totalCreditSumsEveryConsumersMaximum() {
    CreditRoundRobin<String> rr = of("a", 3, "b", 4);
    rr.take();

    assertEquals(7, rr.totalCredit());
  }

  @Test
  void emptyRoundRobinHasNoCredit() {
    CreditRoundRobin<String> rr = new CreditRoundRobin<>();

    assertTrue(rr.isEmpty());
    assertNull(rr.take());
    assertFalse(rr.anyCredit());
    assertEquals(0, rr.totalCredit());
  }

  private static CreditRoundRobin<String> of(Object... consumersAndCredits) {
    CreditRoundRobin<String> rr = new CreditRoundRobin<>();
    for (int i = 0; i < consumersAndCredits.length; i += 2) {
      rr.add((String) consumersAndCredits[i], (Integer) consumersAndCredits[i + 1]);
    }
    return rr;
  }

  private static List<String> take(CreditRoundRobin<String> rr, int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(rr.take());
    }
    return out;
  }
}
