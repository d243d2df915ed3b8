package io.futureq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class IdSetTest {

  @Test
  void anIdAddedTwiceIsADuplicateAndCountsOnce() {
    IdSet set = new IdSet(10);

    assertTrue(set.add("a"));
    assertFalse(set.add("a"));
    assertTrue(set.add("b"));

    assertEquals(2, set.size());
  }

  @Test
  void missingFromCountsTheIdsTheOtherSetLacks() {
    IdSet published = new IdSet(1000);
    IdSet received = new IdSet(1000);
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      ids.add(UUID.randomUUID().toString());
      published.add(ids.get(i));
    }
    for (int i = 0; i < 990; i++) {
      received.add(ids.get(i));
    }

    assertEquals(10, published.missingFrom(received));
    assertEquals(0, received.missingFrom(published));
  }

  @Test
  void itRefusesMoreIdsThanItWasMadeFor() {
    IdSet set = new IdSet(2);
    set.add("a");
    set.add("b");

    assertThrows(IllegalStateException.class, () -> set.add("c"));
    assertFalse(set.add("a"), "a known id is still found");
  }
}
