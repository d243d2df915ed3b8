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
 * Two rounds of the cluster crash loop (CI's time budget; each round takes 30-60 s, most of it a
 * restarted node's start-up and catch-up): three broker processes, a random node (leader or follower)
 * SIGKILLed and restarted in the first round, SIGSTOPped and continued (it rejoins) in the second, under QUORUM
 * publishes and acking consumers of two groups and a universal subscriber. Nothing acked is lost, early or
 * resurrected, and the three replicas' stores are identical at the end. {@code
 * scripts/cluster-crash-loop.sh ROUNDS} runs longer ones.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
@Solo
class ClusterCrashLoopTest {
  @TempDir
  Path dir;

  @Test
  void nothingAckedIsLostEarlyOrResurrectedAndTheReplicasEndIdentical() throws Exception {
    Workload.Report report = ClusterCrashLoop.run(ClusterCrashLoop.Options.of(2, dir));
    String figures = report.format();
    System.out.print(figures);
    assertEquals(2, report.rounds(), figures);
    assertTrue(report.drained(), figures);
    assertEquals(Map.of(), report.broken(), figures);
    assertTrue(report.ok(), figures);
  }
}
