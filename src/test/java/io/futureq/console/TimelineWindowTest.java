package io.futureq.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The spans a page names and the steps a zoom gets: whole steps, never more than 240 bars, bad input named. */
class TimelineWindowTest {
  private static final long NOW = 1_800_000_123_456L; // 2027-01-15T08:02:03.456Z

  @Test
  void namedSpansStartAtNowOrItsStepAndHaveTheirResolution() {
    assertEquals(new TimelineWindow(1_800_000_123, 1, 60), TimelineWindow.of("minute", null, null, NOW));
    assertEquals(new TimelineWindow(1_800_000_120, 60, 60), TimelineWindow.of("hour", null, null, NOW));
    assertEquals(new TimelineWindow(1_800_000_000, 900, 96), TimelineWindow.of("day", null, null, NOW));
    assertEquals(new TimelineWindow(1_800_000_000, 3600, 168), TimelineWindow.of("week", null, null, NOW));
  }

  @Test
  void aZoomTakesTheSmallestStepThatKeepsItWithin240BarsStartingOnAWholeStep() {
    assertEquals(new TimelineWindow(1_800_000_123, 1, 31), TimelineWindow.of(null, NOW, NOW + 30_000, NOW),
        "the last second, partly covered, too");
    TimelineWindow tenMinutes = TimelineWindow.of(null, NOW, NOW + 600_000, NOW);
    assertEquals(5, tenMinutes.stepSeconds());
    assertEquals(0, tenMinutes.fromSecond() % 5);
    TimelineWindow month = TimelineWindow.of(null, NOW, NOW + 30L * 86_400_000, NOW);
    assertEquals(21_600, month.stepSeconds());
    assertTrue(month.points() <= TimelineWindow.MAX_POINTS);
    TimelineWindow decade = TimelineWindow.of(null, NOW, NOW + 3000L * 86_400_000, NOW);
    assertTrue(decade.points() <= TimelineWindow.MAX_POINTS && decade.stepSeconds() % 86_400 == 0, decade.toString());
    assertTrue(decade.fromSecond() + decade.stepSeconds() * decade.points() >= (NOW + 3000L * 86_400_000) / 1000);
  }

  @Test
  void badInputIsNamed() {
    assertTrue(assertThrows(ConsoleReply.BadRequest.class, () -> TimelineWindow.of("year", null, null, NOW))
        .getMessage().startsWith("span:"));
    assertTrue(assertThrows(ConsoleReply.BadRequest.class, () -> TimelineWindow.of(null, NOW, null, NOW))
        .getMessage().contains("from and to"));
    assertTrue(assertThrows(ConsoleReply.BadRequest.class, () -> TimelineWindow.of(null, NOW, NOW - 5_000, NOW))
        .getMessage().startsWith("to:"));
  }
}
