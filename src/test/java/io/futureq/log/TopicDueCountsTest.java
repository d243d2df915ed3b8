package io.futureq.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Entries committed while a topic is being counted wait, and only those after the log index the count read at are
 * applied: the entries it read are not counted twice, the later ones not missed.
 */
class TopicDueCountsTest {
  private static final long S = 1_800_000_000;

  @Test
  void changesCommittedDuringTheBuildApplyOnlyIfTheBuildsViewDidNotHoldThem() {
    TopicDueCounts counts = new TopicDueCounts();
    counts.apply(5, Map.of(S, 2L));      // committed before the view: the view holds it
    counts.apply(7, Map.of(S + 1, 1L));  // committed after the view
    counts.apply(8, Map.of(S, -1L));     // an ack after the view
    counts.built(6, Map.of(S, 2L, S + 2, 4L));

    TopicDueCounts.Window w = counts.window(S, 1, 3, S);
    assertArrayEquals(new long[] {1, 1, 4}, w.counts());
    assertEquals(6, w.total());
    counts.apply(9, Map.of(S + 2, -4L));
    assertArrayEquals(new long[] {1, 1, 0}, counts.window(S, 1, 3, S).counts(), "applied at once once built");
    assertEquals(1, counts.window(S, 1, 3, S + 1).overdue());
  }
}
