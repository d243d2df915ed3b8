package io.futureq.log;

import java.util.Map;
import java.util.TreeMap;

/**
 * Counts of one topic's stored messages per due second, with totals per minute, hour and day (UTC), so that a
 * window of any length is summed from at most a few thousand counters, whatever the number of messages. Not
 * thread-safe: {@link TopicDueCounts} guards it.
 *
 * <p>Memory: one {@code int[60]} per minute holding a message (about 300 bytes), plus a counter per hour and day.
 */
final class DueTimeline {
  private static final long MINUTE = 60;
  private static final long HOUR = 3600;
  private static final long DAY = 86_400;

  private final TreeMap<Long, int[]> minutes = new TreeMap<>();
  private final TreeMap<Long, long[]> hours = new TreeMap<>();
  private final TreeMap<Long, long[]> days = new TreeMap<>();
  private long total;

  /** Adds {@code delta} (negative to remove) messages due in epoch second {@code second}. */
  void add(long second, long delta) {
    if (delta == 0) {
      return;
    }
    long minute = Math.floorDiv(second, MINUTE);
    int[] secs = minutes.computeIfAbsent(minute, m -> new int[(int) MINUTE + 1]);
    secs[(int) Math.floorMod(second, MINUTE)] += (int) delta;
    secs[(int) MINUTE] += (int) delta; // the minute's own total
    if (secs[(int) MINUTE] == 0) {
      minutes.remove(minute);
    }
    addTo(hours, Math.floorDiv(second, HOUR), delta);
    addTo(days, Math.floorDiv(second, DAY), delta);
    total += delta;
  }

  long total() {
    return total;
  }

  /** Messages due before epoch second {@code second}: the days, hours, minutes and seconds before it. */
  long before(long second) {
    long day = Math.floorDiv(second, DAY);
    long hour = Math.floorDiv(second, HOUR);
    long minute = Math.floorDiv(second, MINUTE);
    long sum = sumLong(days.headMap(day));
    sum += sumLong(hours.subMap(day * (DAY / HOUR), hour));
    for (int[] secs : minutes.subMap(hour * (HOUR / MINUTE), minute).values()) {
      sum += secs[(int) MINUTE];
    }
    int[] current = minutes.get(minute);
    if (current != null) {
      for (int s = 0; s < Math.floorMod(second, MINUTE); s++) {
        sum += current[s];
      }
    }
    return sum;
  }

  /** The earliest second with a message due, or -1. */
  long firstSecond() {
    Map.Entry<Long, int[]> first = minutes.firstEntry();
    if (first == null) {
      return -1;
    }
    for (int s = 0; s < MINUTE; s++) {
      if (first.getValue()[s] != 0) {
        return first.getKey() * MINUTE + s;
      }
    }
    return first.getKey() * MINUTE;
  }

  /**
   * Counts per interval {@code [from + i * step, from + (i + 1) * step)} for {@code i < points}, read from the
   * coarsest level whose unit divides both {@code from} and {@code step} (seconds).
   */
  long[] window(long from, long step, int points) {
    long[] out = new long[points];
    long to = from + step * points;
    if (from % DAY == 0 && step % DAY == 0) {
      sumInto(out, days, from, to, step, DAY);
    } else if (from % HOUR == 0 && step % HOUR == 0) {
      sumInto(out, hours, from, to, step, HOUR);
    } else if (from % MINUTE == 0 && step % MINUTE == 0) {
      for (Map.Entry<Long, int[]> e : minutes.subMap(from / MINUTE, true, (to - 1) / MINUTE, true).entrySet()) {
        out[(int) ((e.getKey() * MINUTE - from) / step)] += e.getValue()[(int) MINUTE];
      }
    } else {
      for (Map.Entry<Long, int[]> e : minutes.subMap(Math.floorDiv(from, MINUTE), true,
          Math.floorDiv(to - 1, MINUTE), true).entrySet()) {
        for (int s = 0; s < MINUTE; s++) {
          long second = e.getKey() * MINUTE + s;
          if (second >= from && second < to && e.getValue()[s] != 0) {
            out[(int) ((second - from) / step)] += e.getValue()[s];
          }
        }
      }
    }
    return out;
  }

  private static void sumInto(long[] out, TreeMap<Long, long[]> level, long from, long to, long step, long unit) {
    for (Map.Entry<Long, long[]> e : level.subMap(from / unit, true, (to - 1) / unit, true).entrySet()) {
      out[(int) ((e.getKey() * unit - from) / step)] += e.getValue()[0];
    }
  }

  private static void addTo(TreeMap<Long, long[]> level, long slot, long delta) {
    long[] count = level.computeIfAbsent(slot, s -> new long[1]);
    count[0] += delta;
    if (count[0] == 0) {
      level.remove(slot);
    }
  }

  private static long sumLong(Map<Long, long[]> counts) {
    long sum = 0;
    for (long[] c : counts.values()) {
      sum += c[0];
    }
    return sum;
  }
}
