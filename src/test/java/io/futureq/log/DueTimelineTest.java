package io.futureq.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Windows of any length are summed from the level that fits them, with the same answers as counting seconds. */
class DueTimelineTest {
  private static final long DAY_START = 20_000 * 86_400L; // a UTC midnight

  @Test
  void secondsMinutesHoursAndDaysAgree() {
    DueTimeline t = new DueTimeline();
    t.add(DAY_START + 5, 2);
    t.add(DAY_START + 59, 1);
    t.add(DAY_START + 61, 4);
    t.add(DAY_START + 3_600 + 1, 8);
    t.add(DAY_START + 86_400 + 7, 16);

    assertArrayEquals(new long[] {0, 0, 0, 0, 0, 2, 0, 0, 0, 0}, t.window(DAY_START, 1, 10));
    assertArrayEquals(new long[] {2, 0, 1, 4}, t.window(DAY_START, 20, 4), "20 s steps, from seconds");
    assertArrayEquals(new long[] {3, 4, 0}, t.window(DAY_START, 60, 3), "minutes");
    assertArrayEquals(new long[] {7, 8}, t.window(DAY_START, 3_600, 2), "hours");
    assertArrayEquals(new long[] {15, 16}, t.window(DAY_START, 86_400, 2), "days");
    assertArrayEquals(new long[] {15}, t.window(DAY_START, 6 * 3_600, 1), "six hours, from hours");
    assertEquals(31, t.total());
    assertEquals(DAY_START + 5, t.firstSecond());
  }

  @Test
  void beforeCountsEverythingDueEarlierThanTheSecond() {
    DueTimeline t = new DueTimeline();
    t.add(DAY_START - 86_400 * 3, 1); // days ago
    t.add(DAY_START + 10, 2);
    t.add(DAY_START + 3_600 * 2 + 30, 4);
    t.add(DAY_START + 3_600 * 2 + 61, 8);
    t.add(DAY_START + 3_600 * 2 + 62, 16);

    assertEquals(1, t.before(DAY_START));
    assertEquals(3, t.before(DAY_START + 11));
    assertEquals(7, t.before(DAY_START + 3_600 * 2 + 61));
    assertEquals(15, t.before(DAY_START + 3_600 * 2 + 62));
    assertEquals(31, t.before(DAY_START + 86_400));
  }

  @Test
  void removingEverythingLeavesNothing() {
    DueTimeline t = new DueTimeline();
    t.add(DAY_START + 1, 3);
    t.add(DAY_START + 1, -3);
    assertEquals(0, t.total());
    assertEquals(-1, t.firstSecond());
    assertArrayEquals(new long[] {0, 0}, t.window(DAY_START, 1, 2));
  }
}
