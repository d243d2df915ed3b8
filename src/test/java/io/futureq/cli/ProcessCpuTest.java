package io.futureq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.UncheckedIOException;
import org.junit.jupiter.api.Test;

class ProcessCpuTest {
  @Test
  void readsUserAndSystemTicksPastACommandNameWithSpacesAndParentheses() {
    String stat = "4242 (java (main) x) S 1 4242 4242 0 -1 4194560 51234 0 12 0 1234 567 0 0 20 0 45 0 98765 "
        + "4096000000 60000 18446744073709551615 1 1 0 0 0 0 0 2 16800975 0 0 0 17 1 0 0 0 0 0\n";
    assertEquals(1234 + 567, ProcessCpu.ticks(stat));
  }

  @Test
  void measuresThisProcessBothWays() {
    assertTrue(ProcessCpu.self().nanos() > 0);
    assertTrue(ProcessCpu.of(ProcessHandle.current().pid()).nanos() > 0);
  }

  /** This JVM compiled its tests' code before getting here, so its compiler threads have used some CPU. */
  @Test
  void measuresTheJitCompilerThreadsAsAPartOfTheProcess() {
    long pid = ProcessHandle.current().pid();
    long compiler = ProcessCpu.compilerThreadsOf(pid).nanos();
    assertTrue(compiler > 0, "compiler threads' CPU " + compiler);
    assertTrue(compiler <= ProcessCpu.of(pid).nanos());
  }

  @Test
  void failsForAProcessThatDoesNotExist() {
    assertThrows(UncheckedIOException.class, () -> ProcessCpu.of(Integer.MAX_VALUE));
  }
}
