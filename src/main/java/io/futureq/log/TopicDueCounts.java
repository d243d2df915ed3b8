package io.futureq.log;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One topic's {@link DueTimeline}, safe to read from any thread while the apply thread changes it. While it is
 * being built from the store, the changes of entries committed meanwhile wait with their log index, and only those
 * after the index the build read at are applied: nothing is counted twice or missed.
 */
public final class TopicDueCounts {
  /** The numbers of a window, read at one moment. */
  public record Window(long fromSecond, long stepSeconds, long[] counts, long overdue, long total, long firstSecond) {}

  private record Pending(long index, Map<Long, Long> delta) {}

  private final DueTimeline timeline = new DueTimeline();
  private List<Pending> waiting = new ArrayList<>();

  synchronized void apply(long index, Map<Long, Long> delta) {
    if (waiting != null) {
      waiting.add(new Pending(index, delta));
      return;
    }
    delta.forEach(timeline::add);
  }

  /** The store's counts as of log index {@code builtAt}; the changes committed after it follow. */
  synchronized void built(long builtAt, Map<Long, Long> counted) {
    counted.forEach(timeline::add);
    for (Pending p : waiting) {
      if (p.index() > builtAt) {
        p.delta().forEach(timeline::add);
      }
    }
    waiting = null;
  }

  /**
   * {@code points} intervals of {@code stepSeconds} from epoch second {@code fromSecond}, and what is due before
   * epoch second {@code nowSecond} (overdue: due and not yet acked).
   */
  public synchronized Window window(long fromSecond, long stepSeconds, int points, long nowSecond) {
    return new Window(fromSecond, stepSeconds, timeline.window(fromSecond, stepSeconds, points),
        timeline.before(nowSecond), timeline.total(), timeline.firstSecond());
  }
}
