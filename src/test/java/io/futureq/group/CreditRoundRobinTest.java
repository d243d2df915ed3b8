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
    assertNull(rr.take(1));
    assertFalse(rr.anyCredit());
  }

  @Test
  void releaseGivesBackOneCreditToThatConsumer() {
    CreditRoundRobin<String> rr = of("a", 1, "b", 1);
    take(rr, 2);

    rr.release("b", 1, 1);

    assertTrue(rr.anyCredit());
    assertEquals("b", rr.take(1));
    assertNull(rr.take(1));
  }

  @Test
  void aConsumerWhoseCreditRanOutIsRefilledOnceHalfOfItCameBackNotAtEachAck() {
    CreditRoundRobin<String> rr = of("a", 10);
    assertEquals(10, take(rr, 10).size());

    for (int acked = 1; acked < 5; acked++) {
      rr.release("a", 1, 1);
      assertFalse(rr.anyCredit(), acked + " of 10 back: no frame of " + acked + " yet");
      assertNull(rr.take(1));
    }
    rr.release("a", 1, 1);

    assertEquals(List.of("a", "a", "a", "a", "a"), take(rr, 5), "five back: refilled, to the top");
    assertNull(rr.take(1));
  }

  @Test
  void aRefilledConsumerTakesUntilFullAndOneHoldingNothingAlwaysTakes() {
    CreditRoundRobin<String> rr = of("a", 10);
    take(rr, 3);
    rr.release("a", 1, 1);

    assertEquals(7 + 1, take(rr, 8).size(), "never full since it joined: it takes what is free, one at a time");
    rr.release("a", 10, 10);
    assertEquals("a", rr.take(1));
  }

  @Test
  void aRefillWaitsForHalfTheCreditAtMostSixtyFour() {
    assertEquals(1, CreditRoundRobin.refillAt(1));
    assertEquals(1, CreditRoundRobin.refillAt(2));
    assertEquals(2, CreditRoundRobin.refillAt(3));
    assertEquals(5, CreditRoundRobin.refillAt(10));
    assertEquals(64, CreditRoundRobin.refillAt(1000));
  }

  @Test
  void releaseNeverRaisesCreditAboveTheMaximum() {
    CreditRoundRobin<String> rr = of("a", 2);
    rr.release("a", 1, 1);
    rr.release("a", 1, 1);

    assertEquals(List.of("a", "a"), take(rr, 2));
    assertNull(rr.take(1));
  }

  @Test
  void releaseOfAnUnknownConsumerIsIgnored() {
    CreditRoundRobin<String> rr = of("a", 1);
    rr.take(1);

    rr.release("ghost", 1, 1);

    assertNull(rr.take(1));
  }

  @Test
  void takeResumesAfterTheLastConsumerServed() {
    CreditRoundRobin<String> rr = of("a", 1, "b", 1, "c", 1);
    assertEquals(List.of("a", "b", "c"), take(rr, 3));

    rr.release("a", 1, 1);
    rr.release("c", 1, 1);

    assertEquals("a", rr.take(1));
    assertEquals("c", rr.take(1));
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
    rr.take(1);
    rr.take(1);

    rr.remove("b");
    assertEquals("a", rr.take(1));
    rr.remove("a");

    assertTrue(rr.isEmpty());
    assertNull(rr.take(1));
    assertFalse(rr.anyCredit());
    assertTrue(rr.takeEach(1).isEmpty());
  }

  @Test
  void aConsumerIsNotGivenMoreUnackedBytesThanItsBoundButOneMessageAlwaysFits() {
    CreditRoundRobin<String> rr = new CreditRoundRobin<>();
    rr.add("a", 100, 1000);

    assertEquals("a", rr.take(600));
    assertNull(rr.take(600), "600 + 600 bytes pass the bound of 1000");
    assertEquals("a", rr.take(400));
    assertFalse(rr.anyCredit());
    rr.release("a", 2, 1000);
    assertEquals("a", rr.take(5000), "holding nothing, it takes one message larger than its bound");
    assertNull(rr.take(1));
    rr.release("a", 1, 5000);
    assertTrue(rr.anyCredit());
  }

  @Test
  void aMessageTooLargeForOneConsumerGoesToTheNextWithRoomForIt() {
    CreditRoundRobin<String> rr = new CreditRoundRobin<>();
    rr.add("a", 100, 1000);
    rr.add("b", 100, 1000);
    assertEquals(List.of("a", "b"), List.of(rr.take(900), rr.take(100)));

    assertEquals("b", rr.take(500), "a has 100 bytes of room left, b 900");
    assertEquals(List.of("b"), rr.takeEach(400));
  }

  @Test
  void withoutAByteBoundOnlyTheCountLimits() {
    CreditRoundRobin<String> rr = new CreditRoundRobin<>();
    rr.add("a", 2, 0);

    assertEquals(List.of("a", "a"), List.of(rr.take(Integer.MAX_VALUE), rr.take(Integer.MAX_VALUE)));
    assertNull(rr.take(1));
  }

  @Test
  void takeEachTakesOneCreditFromEveryConsumerThatHasOne() {
    CreditRoundRobin<String> rr = of("a", 1, "b", 2, "c", 1);

    assertEquals(List.of("a", "b", "c"), rr.takeEach(1));
    assertEquals(List.of("b"), rr.takeEach(1));
    assertEquals(List.of(), rr.takeEach(1));
  }

  @Test
  void totalCreditSumsEveryConsumersMaximum() {
    CreditRoundRobin<String> rr = of("a", 3, "b", 4);
    rr.take(1);

    assertEquals(7, rr.totalCredit());
  }

  @Test
  void emptyRoundRobinHasNoCredit() {
    CreditRoundRobin<String> rr = new CreditRoundRobin<>();

    assertTrue(rr.isEmpty());
    assertNull(rr.take(1));
    assertFalse(rr.anyCredit());
    assertEquals(0, rr.totalCredit());
  }

  private static CreditRoundRobin<String> of(Object... consumersAndCredits) {
    CreditRoundRobin<String> rr = new CreditRoundRobin<>();
    for (int i = 0; i < consumersAndCredits.length; i += 2) {
      rr.add((String) consumersAndCredits[i], (Integer) consumersAndCredits[i + 1], 0);
    }
    return rr;
  }

  private static List<String> take(CreditRoundRobin<String> rr, int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(rr.take(1));
    }
    return out;
  }
}
