package io.futureq.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.futureq.api.grpc.AckFrame;
import io.futureq.api.grpc.TagRange;
import java.util.List;
import org.junit.jupiter.api.Test;

class AckPackingTest {

  @Test
  void runsOfConsecutiveTagsBecomeRangesAndTheRestStaySingle() {
    AckFrame frame = SubscribeStream.pack(new long[] {7, 3, 4, 5, 9, 10, 1, 4}, 8);

    assertEquals(List.of(1L, 7L), frame.getDeliveryTagsList());
    assertEquals(List.of(range(3, 5), range(9, 10)), frame.getRangesList());
  }

  @Test
  void onlyTheCountedTagsArePacked() {
    AckFrame frame = SubscribeStream.pack(new long[] {2, 1, 99}, 2);

    assertEquals(List.of(range(1, 2)), frame.getRangesList());
    assertEquals(List.of(), frame.getDeliveryTagsList());
  }

  private static TagRange range(long first, long last) {
    return TagRange.newBuilder().setFirst(first).setLast(last).build();
  }
}
