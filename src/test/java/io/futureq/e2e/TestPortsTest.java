package io.futureq.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** Test JVMs running at once take ports from slices of their own, so two never start brokers on one port. */
class TestPortsTest {
  @Test
  void thisJvmKnowsItsNumberAmongTheBuildsTestJvms() {
    int forks = Integer.getInteger("test.ports.forks", 1);
    int index = TestPorts.forkIndex(forks);
    assertEquals(Integer.getInteger("test.ports.fork", 1) - 1, index, "of " + forks + " JVMs");
  }

  @Test
  void aJvmWithoutItsNumberAmongSeveralIsRefused() {
    String was = System.getProperty("test.ports.fork");
    System.setProperty("test.ports.fork", "");
    try {
      assertThrows(IllegalStateException.class, () -> TestPorts.forkIndex(3));
      assertEquals(0, TestPorts.forkIndex(1));
    } finally {
      if (was == null) {
        System.clearProperty("test.ports.fork");
      } else {
        System.setProperty("test.ports.fork", was);
      }
    }
  }
}
