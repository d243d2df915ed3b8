package io.futureq.cluster;

import io.futureq.api.grpc.LogShardInfo;
import io.futureq.client.FutureQClient;
import io.futureq.client.FutureQProducer;
import io.futureq.client.OutgoingMessage;
import io.futureq.client.ProducerOptions;
import io.futureq.testing.Await;
import io.futureq.testing.ShardTopics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code scripts/shard-failover-bench.sh KILLS [DIR]}: three broker processes with three log shards, each node
 * leading one shard's group. Each kill: one publisher per shard (a topic of that shard, QUORUM, one message every
 * {@link #INTERVAL_MS} ms, each waiting for its answer) through the two nodes that will survive; after 3 s of steady
 * load the node leading shard {@code k mod 3} gets SIGKILL. Printed per kill: for each shard the victim did not
 * lead, the slowest publish sent from 1 s before the kill to 5 s after it (and the slowest in the 2 s before, for
 * comparison); for the victim's shard, when the first publish sent after the kill was answered. Then the victim is
 * started again and the leaderships spread again before the next kill.
 */
public final class ShardFailoverBench {
  static final int SHARDS = 3;
  static final long INTERVAL_MS = 10;
  private static final Duration WAIT = Duration.ofSeconds(120);

  /** One publish: when it was sent, and how long its answer took (ms). */
  private record Sample(long sentAtMs, long latencyMs) {}

  private ShardFailoverBench() {}

  public static void main(String[] args) throws Exception {
    int kills = Integer.parseInt(args[0]);
    Path dir = args.length > 1 ? Files.createDirectories(Path.of(args[1])) : Files.createTempDirectory("shards");
    List<Long> othersWorst = new ArrayList<>();
    List<Long> ownResumed = new ArrayList<>();
    try (ClusterProcesses nodes = new ClusterProcesses(dir, List.of("futureq.cluster.log-shards = " + SHARDS))
        .startAll()) {
      for (int k = 0; k < kills; k++) {
        int[] leaders = awaitSpread(nodes);
        int victimShard = k % SHARDS;
        int victim = leaders[victimShard];
        List<ConcurrentLinkedQueue<Sample>> samples = new ArrayList<>();
        AtomicBoolean running = new AtomicBoolean(true);
        List<Thread> publishers = new ArrayList<>();
        FutureQClient.Builder survivors = FutureQClient.builder().discoveryInterval(Duration.ZERO);
        for (int i = 0; i < ClusterProcesses.SIZE; i++) {
          if (i != victim) {
            survivors.target(nodes.address(i));
          }
        }
        try (FutureQClient client = survivors.build()) {
          for (int shard = 0; shard < SHARDS; shard++) {
            ConcurrentLinkedQueue<Sample> queue = new ConcurrentLinkedQueue<>();
            samples.add(queue);
            String topic = topicIn(shard, "shard-failover-k" + k + "-");
            FutureQProducer producer = client.producer(ProducerOptions.defaults().withLinger(Duration.ZERO));
            Thread publisher = new Thread(() -> publish(producer, topic, queue, running), "publisher-" + shard);
            publisher.start();
            publishers.add(publisher);
          }
          Thread.sleep(3000); // a sleep: steady load before the kill
          long kill = System.currentTimeMillis();
          nodes.kill(victim);
          Thread.sleep(5000); // a sleep: the window measured after the kill
          running.set(false);
          for (Thread publisher : publishers) {
            publisher.join(TimeUnit.SECONDS.toMillis(30));
          }
          StringBuilder line = new StringBuilder("kill -9 node-" + (victim + 1) + " (leading shard " + victimShard
              + "):");
          for (int shard = 0; shard < SHARDS; shard++) {
            List<Sample> all = new ArrayList<>(samples.get(shard));
            if (shard == victimShard) {
              long resumed = all.stream().filter(s -> s.sentAtMs() >= kill).mapToLong(s -> s.sentAtMs()
                  + s.latencyMs() - kill).min().orElse(-1);
              ownResumed.add(resumed);
              line.append(" shard ").append(shard).append(" (its own) answered again ").append(resumed)
                  .append(" ms after the kill;");
            } else {
              long worst = worst(all, kill - 1000, kill + 5000);
              othersWorst.add(worst);
              line.append(" shard ").append(shard).append(" slowest publish ").append(worst).append(" ms (before: ")
                  .append(worst(all, kill - 3000, kill - 1000)).append(" ms), ").append(all.size())
                  .append(" publishes;");
            }
          }
          System.out.println((k + 1) + ": " + line);
        }
        nodes.start(victim);
        nodes.awaitReady(victim, WAIT);
      }
    }
    othersWorst.sort(null);
    ownResumed.sort(null);
    System.out.println("shards the victim did not lead, slowest publish around the kill (ms): " + othersWorst);
    System.out.println("the victim's shard, answered again after (ms): " + ownResumed);
    System.exit(0);
  }

  /** Publishes one message at a time, each after the previous one's answer and a pause, until told to stop. */
  private static void publish(FutureQProducer producer, String topic, ConcurrentLinkedQueue<Sample> samples,
      AtomicBoolean running) {
    for (long n = 0; running.get(); n++) {
      long sent = System.currentTimeMillis();
      try {
        producer.send(OutgoingMessage.to(topic).payload("m" + n).build()).get(30, TimeUnit.SECONDS);
        samples.add(new Sample(sent, System.currentTimeMillis() - sent));
      } catch (Exception e) {
        samples.add(new Sample(sent, System.currentTimeMillis() - sent));
      }
      try {
        Thread.sleep(INTERVAL_MS); // a sleep: the publishers' pace
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private static long worst(List<Sample> samples, long fromMs, long toMs) {
    return samples.stream().filter(s -> s.sentAtMs() >= fromMs && s.sentAtMs() < toMs).mapToLong(Sample::latencyMs)
        .max().orElse(-1);
  }

  /** Waits until each node leads one shard; returns each shard's leader (node index). */
  private static int[] awaitSpread(ClusterProcesses nodes) {
    int[] leaders = new int[SHARDS];
    Await.until("each node leading one log shard", WAIT, () -> {
      try (FutureQClient admin = nodes.client(0)) {
        List<LogShardInfo> shards = admin.clusterInfo().get(10, TimeUnit.SECONDS).getRaft().getLogShardsList();
        boolean[] seen = new boolean[ClusterProcesses.SIZE];
        for (LogShardInfo shard : shards) {
          String id = shard.getLeaderId();
          if (!id.startsWith("node-")) {
            return false;
          }
          leaders[shard.getShard()] = Integer.parseInt(id.substring("node-".length())) - 1;
          seen[leaders[shard.getShard()]] = true;
        }
        return shards.size() == SHARDS && seen[0] && seen[1] && seen[2];
      }
    });
    return leaders;
  }

  private static String topicIn(int shard, String prefix) {
    return ShardTopics.in(shard, SHARDS, prefix);
  }
}
