package io.futureq.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.futureq.testing.Solo;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Five SIGKILLs of a real broker process under the crash-loop workload (two groups, a universal
 * subscriber, delayed nacks, TTLs, cancels of pending and in-flight messages, keys reused after ack
 * and after expiry): nothing acked is lost, nothing is early, nothing acked and deleted or cancelled
 * or expired comes back, no id is reused (each check is explained in {@link Workload#analyze}).
 * Three rounds keep CI within its budget; {@code scripts/crash-loop.sh ROUNDS} runs longer ones.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
@Solo
class CrashLoopTest {
  @TempDir
  Path dir;

  @Test
  void nothingAckedIsLostEarlyResurrectedOrRenumberedAcrossFiveKillNines() throws Exception {
    Workload.Report report = CrashLoop.run(CrashLoop.Options.of(3, dir));
    String figures = report.format();
    System.out.print(figures);
    assertEquals(3, report.rounds(), figures);
    assertTrue(report.drained(), figures);
    assertEquals(Map.of(), report.broken(), figures);
    assertTrue(report.ok(), figures);
  }
}
