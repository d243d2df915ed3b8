package io.futureq.console;

/**
 * Which intervals a timeline shows: a named span from now (the next minute at 1 s, the next hour at 1 min, the
 * next day at 15 min, the next week at 1 h), or a zoomed range, whose step is the smallest of a fixed ladder that
 * keeps it within {@link #MAX_POINTS}. Starts are whole steps (UTC), so the counts read the coarsest level that fits.
 */
record TimelineWindow(long fromSecond, long stepSeconds, int points) {
  static final int MAX_POINTS = 240;
  private static final long[] STEPS = {1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800,
      21_600, 43_200, 86_400};
  /** The furthest a window reaches: as far as a message may be due (futureq.api.max-delay's limit). */
  private static final long MAX_SPAN_SECONDS = 3650L * 86_400;

  /**
   * @param span minute, hour, day or week (from now); or null with {@code fromMs} and {@code toMs}
   * @throws ConsoleReply.BadRequest naming the parameter
   */
  static TimelineWindow of(String span, Long fromMs, Long toMs, long nowMs) {
    long now = Math.floorDiv(nowMs, 1000);
    if (span != null) {
      return switch (span) {
        case "minute" -> new TimelineWindow(now, 1, 60);
        case "hour" -> aligned(now, 60, 60);
        case "day" -> aligned(now, 900, 96);
        case "week" -> aligned(now, 3600, 168);
        default -> throw new ConsoleReply.BadRequest("span: must be minute, hour, day or week; got '" + span + "'");
      };
    }
    if (fromMs == null || toMs == null) {
      throw new ConsoleReply.BadRequest("span, or from and to (epoch milliseconds), must be given");
    }
    long from = Math.floorDiv(fromMs, 1000);
    long to = Math.floorDiv(toMs + 999, 1000);
    if (to <= from || to - from > MAX_SPAN_SECONDS) {
      throw new ConsoleReply.BadRequest("to: must be after from, and at most 3650 days after it");
    }
    for (long step : STEPS) {
      long start = Math.floorDiv(from, step) * step;
      long points = (to - start + step - 1) / step;
      if (points <= MAX_POINTS) {
        return new TimelineWindow(start, step, (int) points);
      }
    }
    long step = STEPS[STEPS.length - 1] * ((to - from) / (STEPS[STEPS.length - 1] * MAX_POINTS) + 1);
    long start = Math.floorDiv(from, 86_400) * 86_400;
    return new TimelineWindow(start, step, (int) ((to - start + step - 1) / step));
  }

  private static TimelineWindow aligned(long now, long step, int points) {
    return new TimelineWindow(Math.floorDiv(now, step) * step, step, points);
  }
}
