package io.futureq.cluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.function.ToLongFunction;

/**
 * {@code scripts/failover-bench.sh KILLS [DIR]}: three broker processes under {@link FailoverProbe}'s
 * load; kills the Raft leader and a follower in turn, KILLS times, restarting each, and prints every
 * kill's stages and then p50 / p99 / max per stage. Exit status 1 if an acknowledged message was lost.
 */
public final class FailoverBench {
  private FailoverBench() {}

  public static void main(String[] args) throws Exception {
    int kills = Integer.parseInt(args[0]);
    Path dir = args.length > 1 ? Files.createDirectories(Path.of(args[1])) : Files.createTempDirectory("failover");
    List<String> extra = new ArrayList<>(Arrays.asList(args).subList(Math.min(2, args.length), args.length));
    List<FailoverProbe.Stages> all = new ArrayList<>();
    int lostCount;
    try (ClusterProcesses nodes = new ClusterProcesses(dir, extra).startAll();
        FailoverProbe probe = new FailoverProbe(nodes).start()) {
      Thread.sleep(2000); // a sleep: 2 s of steady load before the first kill
      for (int k = 0; k < kills; k++) {
        int leader = nodes.leader(0);
        int victim = k % 2 == 0 ? leader : (leader + 1) % 3;
        FailoverProbe.Stages stages = probe.killAndMeasure(victim, Duration.ofSeconds(60), true);
        System.out.println((k + 1) + ": " + stages);
        all.add(stages);
        Thread.sleep(2000); // a sleep: 2 s of steady load between kills
      }
      Set<String> lost = probe.stopAndFindLost(Duration.ofSeconds(60));
      lostCount = lost.size();
      System.out.println("acknowledged " + probe.ackedCount() + ", lost " + lost.size() + (lost.isEmpty() ? ""
          : ": " + lost));
    }
    System.out.println("stage (ms from kill -9)             p50     p99     max   (" + all.size() + " kills)");
    summary("Raft leader elected (leader kills)", all.stream().filter(FailoverProbe.Stages::wasLeader).toList(),
        FailoverProbe.Stages::leaderElected);
    summary("publish resumed, slowest survivor", all, FailoverProbe.Stages::worstSurvivorPublish);
    summary("dead node's producer resumed", all, FailoverProbe.Stages::deadNodeProducerResumed);
    summary("dead member marked unreachable", all, FailoverProbe.Stages::memberUnreachable);
    summary("dead member marked down", all, FailoverProbe.Stages::memberDown);
    summary("dead node's topics running elsewhere", all, FailoverProbe.Stages::topicsRehomed);
    summary("dead node's topics delivering", all, FailoverProbe.Stages::consumersReceive);
    summary("slowest GetClusterInfo meanwhile", all, FailoverProbe.Stages::slowestClusterInfo);
    System.exit(lostCount == 0 ? 0 : 1);
  }

  private static void summary(String name, List<FailoverProbe.Stages> runs, ToLongFunction<FailoverProbe.Stages> f) {
    long[] v = runs.stream().mapToLong(f).map(x -> x < 0 ? Long.MAX_VALUE : x).sorted().toArray();
    if (v.length == 0) {
      return;
    }
    System.out.printf("%-36s %7s %7s %7s%n", name, show(v[(v.length - 1) / 2]),
        show(v[(int) Math.ceil(v.length * 0.99) - 1]), show(v[v.length - 1]));
  }

  private static String show(long ms) {
    return ms == Long.MAX_VALUE ? "never" : Long.toString(ms);
  }
}
