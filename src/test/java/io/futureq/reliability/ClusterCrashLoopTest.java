package io.futureq.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three rounds of the cluster crash loop: three broker processes, each round a random node (leader
 * or follower) SIGKILLed and restarted, or SIGSTOPped and continued, under QUORUM publishes and
 * acking consumers of two groups and a universal subscriber. Nothing acked is lost, early or
 * resurrected, and the three replicas' stores are identical at the end. {@code
 * scripts/cluster-crash-loop.sh ROUNDS} runs longer ones.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class ClusterCrashLoopTest {
  @TempDir
  Path dir;

  @Test
  void nothingAckedIsLostEarlyOrResurrectedAndTheReplicasEndIdentical() throws Exception {
    Workload.Report report = ClusterCrashLoop.run(ClusterCrashLoop.Options.of(3, dir));
    String figures = report.format();
    System.out.print(figures);
    assertEquals(3, report.rounds(), figures);
    assertTrue(report.drained(), figures);
    assertEquals(Map.of(), report.broken(), figures);
    assertTrue(report.ok(), figures);
  }
}
