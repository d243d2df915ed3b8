package io.futureq.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ten SIGKILLs of a real broker process under steady publishing and consuming: no acked message is
 * lost, none is delivered early, none acked and deleted comes back, and no message id is reused.
 * The figures are printed; {@code scripts/crash-loop.sh ROUNDS} runs the same loop for longer.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class CrashLoopTest {
  @TempDir
  Path dir;

  @Test
  void noAckedMessageIsLostEarlyResurrectedOrRenumberedAcrossTenKillNines() throws Exception {
    CrashLoop.Report report = CrashLoop.run(CrashLoop.Options.of(10, dir));
    System.out.print(report.format());
    String figures = report.format();
    assertEquals(10, report.roundsSurvived(), figures);
    assertTrue(report.acked() > 0, figures);
    assertTrue(report.drained(), figures);
    assertEquals(0, report.lost(), figures);
    assertEquals(0, report.lostIds(), figures);
    assertEquals(0, report.early(), figures);
    assertEquals(0, report.earlyVsRequest(), figures);
    assertEquals(0, report.resurrected(), figures);
    assertEquals(0, report.quietResurrected(), figures);
    assertEquals(0, report.idReuse(), figures);
    assertEquals(0, report.unknownPayloads(), figures);
    assertEquals(0, report.pendingAfter(), figures);
    assertTrue(report.ok(), figures);
  }
}
