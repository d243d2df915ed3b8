package io.futureq.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TagRangesTest {

  @Test
  void fromDropsAndClipsRangesBelowTheFirstTag() {
    TagRanges tags = new TagRanges(new long[] {1, 3, 5, 5, 7, 9});

    assertEquals(tags, tags.from(1));
    assertEquals(new TagRanges(new long[] {5, 5, 7, 9}), tags.from(4));
    assertEquals(new TagRanges(new long[] {8, 9}), tags.from(8));
    assertTrue(tags.from(10).isEmpty());
    assertEquals(TagRanges.of(4, 4), TagRanges.of(1, 4).from(4));
  }

  @Test
  void highestIsTheLargestLastBound() {
    assertEquals(9, new TagRanges(new long[] {7, 9, 1, 2}).highest());
    assertEquals(0, TagRanges.NONE.highest());
  }

  @Test
  void gatheringAcksOfTagsOneByOneInOrderMakesOneRange() {
    TagRanges.Gather gather = new TagRanges.Gather();
    for (long tag = 1; tag <= 100; tag++) {
      gather.add(TagRanges.of(tag, tag));
    }
    gather.add(new TagRanges(new long[] {90, 101, 105, 106}));
    gather.add(TagRanges.of(3, 3));

    assertEquals(new TagRanges(new long[] {1, 101, 105, 106, 3, 3}), gather.take());
    assertTrue(gather.isEmpty());
    assertEquals(TagRanges.NONE, gather.take());
  }

  @Test
  void zeroOrBackwardRangesAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> TagRanges.of(0, 2));
    assertThrows(IllegalArgumentException.class, () -> TagRanges.of(5, 3));
    assertThrows(IllegalArgumentException.class, () -> new TagRanges(new long[] {1}));
  }
}
