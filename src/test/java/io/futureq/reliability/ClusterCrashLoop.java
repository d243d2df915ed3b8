package io.futureq.reliability;

import io.futureq.api.grpc.LogShardInfo;
import io.futureq.api.grpc.RaftInfo;
import io.futureq.client.FutureQClient;
import io.futureq.e2e.TestPorts;
import io.futureq.log.LogShards;
import io.futureq.testing.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * The cluster crash loop: three real broker processes in cluster mode ({@link ClusterMember}); each
 * round, at a random moment under the {@link Workload} (QUORUM publishes, acking consumers, all
 * through one client given the three nodes, so it fails over), a random node, leader or follower,
 * gets SIGKILL (then is started again on its data directories; odd rounds) or SIGSTOP (then SIGCONT
 * 1.5-4 s later; even rounds). After the last round the workload drains and checks its guarantees; then, once every
 * node has applied what the leader committed, the three are frozen together and their stores
 * digested read-only ({@link StoreDigest}): they must be identical; then each is stopped with SIGTERM
 * and must exit 0.
 *
 * <p>A killed node's store is read between its kill and its restart ({@link StorageProbe}): an ack
 * applied on any replica is committed, so a later delivery of that message to that group, from
 * whichever node hosts the topic, is a resurrection.
 *
 * <p>Used by {@code ClusterCrashLoopTest} (3 rounds) and {@code scripts/cluster-crash-loop.sh}.
 */
public final class ClusterCrashLoop {
  private static final Duration START = Duration.ofSeconds(120);

  /**
   * @param rounds disruption rounds
   * @param workDir configs, data directories and one log per node incarnation go here
   * @param ratePerSecond messages published per second
   * @param seed for the workload, the nodes, the actions and their moments
   * @param nodes how many nodes: three hold every shard; with more, each shard lives on three of them
   *     ({@code futureq.cluster.replication-factor}'s default)
   */
  public record Options(int rounds, Path workDir, int ratePerSecond, long seed, int nodes) {
    public static Options of(int rounds, Path workDir) {
      return new Options(rounds, workDir, 50, System.nanoTime(), 3);
    }
  }

  /** Each log shard's replicas (futureq.cluster.replication-factor's default). */
  static final int REPLICATION_FACTOR = 3;

  static final long IN_FLIGHT_TIMEOUT_MS = 2000;
  /** The cluster loops run with this many log shards, and the workload publishes to a topic in each. */
  static final int LOG_SHARDS = 3;
  static final String EXTRA_CONFIG = String.join("\n",
      "futureq.cluster.log-shards = " + LOG_SHARDS,
      "futureq.group.in-flight-timeout = " + IN_FLIGHT_TIMEOUT_MS + "ms",
      "futureq.topic.delete-batch-interval = 50ms");

  private final Options options;
  private final Random random;
  private final StringBuilder journal = new StringBuilder();

  private ClusterCrashLoop(Options options) {
    this.options = options;
    this.random = new Random(options.seed() + 11);
  }

  static Workload.Report run(Options options) throws Exception {
    return new ClusterCrashLoop(options).run();
  }

  private Workload.Report run() throws Exception {
    long begin = System.currentTimeMillis();
    Files.createDirectories(options.workDir());
    int count = options.nodes();
    int[] free = TestPorts.distinct(4 * count);
    String[] hosts = new String[count];
    ClusterMember.Ports[] ports = new ClusterMember.Ports[count];
    List<List<String>> prefixes = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      hosts[i] = "127.0.0.1";
      ports[i] = new ClusterMember.Ports(free[4 * i], free[4 * i + 1], free[4 * i + 2], free[4 * i + 3]);
      prefixes.add(List.of());
    }
    List<ClusterMember> nodes = ClusterMember.create(options.workDir(), hosts, ports, EXTRA_CONFIG, prefixes);
    say("work dir " + options.workDir() + ", seed " + options.seed() + ", gRPC "
        + nodes.stream().map(ClusterMember::grpcTarget).toList());
    Workload workload = new Workload(new Workload.Options(options.seed(), options.ratePerSecond(), 3000,
        IN_FLIGHT_TIMEOUT_MS, Workload.topicsInShards(LOG_SHARDS)), this::say);
    Map<String, Long> violations = new LinkedHashMap<>();
    List<String> notes = new ArrayList<>();
    int survived = 0;
    try {
      for (ClusterMember n : nodes) {
        n.launch();
      }
      for (ClusterMember n : nodes) {
        n.awaitReady(START);
      }
      long readyAt = System.currentTimeMillis();
      FutureQClient.Builder builder = FutureQClient.builder().requestTimeout(Duration.ofSeconds(10));
      nodes.forEach(n -> builder.target(n.grpcTarget()));
      FutureQClient.Builder adminBuilder = FutureQClient.builder();
      nodes.forEach(n -> adminBuilder.target(n.grpcTarget()));
      Map<String, Integer> actions = new HashMap<>();
      try (FutureQClient client = builder.build(); FutureQClient admin = adminBuilder.build()) {
        workload.start(client, admin);
        for (int round = 1; round <= options.rounds(); round++) {
          long roundStart = CrashLoop.awaitFirstAnswer(workload, readyAt);
          Thread.sleep(1000 + random.nextInt(2001)); // a sleep: the disruption strikes at a random moment of the load
          ClusterMember victim = nodes.get(random.nextInt(count));
          // Kills and pauses alternate, so that even two rounds (CI's) have one of each.
          boolean kill = round % 2 == 1;
          String role = roleOf(victim);
          Set<String> hosted = new TreeSet<>();
          topicHosts(admin, workload.topics()).forEach((topic, host) -> {
            if (host.equals(victim.nodeId)) {
              hosted.add(topic);
            }
          });
          if (!hosted.isEmpty()) {
            role += ", hosting " + hosted;
          }
          long pid = victim.pid();
          long start = System.currentTimeMillis();
          String what;
          if (kill) {
            victim.kill();
            int index = workload.disruptionCount();
            for (String topic : workload.topics()) {
              if (!holds(victim.store, topic)) {
                continue; // the victim holds no replica of the topic's shard: nothing of it to probe there
              }
              for (String group : Workload.GROUPS) {
                Set<String> candidates = workload.probeCandidates(topic, group, start);
                workload.durablyAcked(topic, group, StorageProbe.durablyAcked(shardStore(victim.store, topic), topic,
                    group, candidates), index);
              }
            }
            victim.launch();
            victim.awaitReady(START);
            what = "SIGKILL " + victim.nodeId + " (" + role + ")";
          } else {
            victim.signal("STOP");
            Thread.sleep(1500 + random.nextInt(2501)); // a sleep: how long the node stays frozen is the disruption
            victim.signal("CONT");
            victim.awaitReady(START);
            what = "SIGSTOP " + victim.nodeId + " (" + role + ")";
          }
          readyAt = System.currentTimeMillis();
          // an ack applied on any replica is committed: deliveries after the kill (and any already on
          // the wire, TRANSIT_MS) must not bring it back, whichever node sends them
          Set<String> spared = new TreeSet<>(workload.topics());
          spared.removeAll(hosted);
          workload.disrupted(new Workload.Disruption(what, start, start + Workload.TRANSIT_MS, readyAt, spared));
          actions.merge((kill ? "SIGKILL " : "SIGSTOP ") + role, 1, Integer::sum);
          survived = round;
          say(String.format("round %d/%d: %s pid %d %d ms into the round; answered %d, delivered %d; ready again "
              + "after %.1f s", round, options.rounds(), what, pid, start - roundStart, workload.answered(),
              workload.deliveries(), (readyAt - start) / 1000.0));
        }
        CrashLoop.awaitFirstAnswer(workload, readyAt);
        Thread.sleep(1000); // a sleep: a last second of load through the cluster as it now is
        workload.finish(admin);
      }
      notes.add("actions: " + actions);
      compareReplicas(nodes, Math.min(REPLICATION_FACTOR, count), violations, notes);
    } catch (Throwable t) {
      StringBuilder tails = new StringBuilder();
      nodes.forEach(n -> tails.append("\n--- ").append(n.nodeId).append(":\n").append(n.tail(40)));
      say("FAILED: " + t + tails);
      throw t;
    } finally {
      workload.stop();
      nodes.forEach(ClusterMember::close);
      Files.writeString(options.workDir().resolve("cluster-crash-loop.journal"), journal.toString());
      workload.dump(options.workDir());
    }
    return workload.analyze("cluster crash loop", survived, begin, Workload.brokerLogSummary(options.workDir()),
        notes, violations);
  }

  /**
   * Waits until every node has applied what the others have, freezes the three at once
   * (SIGSTOP: a node shutting down first would let the two others commit more, such as the
   * sharding coordinator's journal entries, and the stores would differ by lag, not divergence),
   * digests their stores read-only ({@link StoreDigest}; the frozen processes write nothing), then
   * continues them and stops them with SIGTERM. Column families whose digests differ between
   * replicas, replicas not caught up, and nodes that do not exit 0 are violations.
   */
  static void compareReplicas(List<ClusterMember> nodes, Map<String, Long> violations, List<String> notes)
      throws Exception {
    compareReplicas(nodes, nodes.size(), violations, notes);
  }

  /**
   * As above, where each shard has {@code replicas} replicas: each shard's families are compared between the nodes
   * holding it, and a shard found on another number of nodes is a violation.
   */
  static void compareReplicas(List<ClusterMember> nodes, int replicas, Map<String, Long> violations,
      List<String> notes) throws Exception {
    boolean caughtUp = awaitCaughtUp(nodes, Duration.ofSeconds(60), notes);
    for (ClusterMember n : nodes) {
      n.signal("STOP");
    }
    List<Map<String, String>> digests = new ArrayList<>();
    try {
      for (ClusterMember n : nodes) {
        Map<String, String> d = StoreDigest.of(n.store);
        digests.add(d);
        notes.add(n.nodeId + " store: " + d);
      }
    } finally {
      for (ClusterMember n : nodes) {
        n.signal("CONT");
      }
    }
    long unclean = 0;
    for (ClusterMember n : nodes) {
      int status = n.terminate();
      if (status != 0) {
        unclean++;
        notes.add(n.nodeId + " exited with " + status + " after SIGTERM");
      }
    }
    long differing = 0;
    long misplaced = 0;
    Set<String> families = new TreeSet<>();
    digests.forEach(d -> families.addAll(d.keySet()));
    for (String family : families) {
      List<String> held = digests.stream().map(d -> d.get(family)).filter(Objects::nonNull).toList();
      if (held.stream().distinct().count() > 1) {
        differing++;
      }
      if (held.size() != replicas) {
        misplaced++;
        notes.add(family + " found on " + held.size() + " nodes, not " + replicas);
      }
    }
    violations.put("replicas not caught up within 60 s of the drain", caughtUp ? 0L : 1L);
    violations.put("replicas differ: column families whose digests differ", differing);
    violations.put("column families not on as many nodes as a shard has replicas", misplaced);
    violations.put("nodes that did not exit 0 after SIGTERM", unclean);
  }

  /**
   * True once, for every log shard, the nodes holding it report the same commit index and the same applied index,
   * all unchanged for 500 ms. (The applied index can stay one below the commit index for good: the last committed
   * entry may be the new leader's no-op, which reaches no state machine.)
   */
  private static boolean awaitCaughtUp(List<ClusterMember> nodes, Duration within, List<String> notes) {
    List<String> last = new ArrayList<>();
    long[] sameSince = {0};
    boolean caughtUp = Await.holdsWithin("replicas caught up", within, () -> {
      List<String> seen = new ArrayList<>();
      Map<Integer, Set<Long>> commits = new TreeMap<>();
      Map<Integer, Set<Long>> applied = new TreeMap<>();
      boolean all = true;
      for (ClusterMember n : nodes) {
        RaftInfo info = n.raft();
        if (info == null) {
          all = false;
          seen.add(n.nodeId + ": no answer");
          continue;
        }
        for (LogShardInfo shard : info.getLogShardsList()) {
          if (shard.getRole().equals("NOT_HELD")) {
            continue;
          }
          seen.add(n.nodeId + " shard " + shard.getShard() + " " + shard.getRole() + " commit "
              + shard.getCommitIndex() + " applied " + shard.getAppliedIndex());
          commits.computeIfAbsent(shard.getShard(), k -> new HashSet<>()).add(shard.getCommitIndex());
          applied.computeIfAbsent(shard.getShard(), k -> new HashSet<>()).add(shard.getAppliedIndex());
        }
      }
      boolean equal = all && commits.values().stream().allMatch(c -> c.size() == 1)
          && applied.values().stream().allMatch(a -> a.size() == 1);
      long now = System.nanoTime();
      if (!equal || !seen.equals(last)) {
        sameSince[0] = now;
      }
      last.clear();
      last.addAll(seen);
      return equal && now - sameSince[0] >= TimeUnit.MILLISECONDS.toNanos(500);
    });
    notes.add((caughtUp ? "caught up: " : "NOT caught up: ") + last);
    return caughtUp;
  }

  /** The node each topic's entity runs on, as the cluster says ("" for a topic when it does not answer). */
  static Map<String, String> topicHosts(FutureQClient admin, List<String> topics) {
    Map<String, String> hosts = new TreeMap<>();
    topics.forEach(topic -> hosts.put(topic, ""));
    try {
      admin.clusterInfo().get(10, TimeUnit.SECONDS).getMembersList().forEach(m -> m.getTopicsList().forEach(t -> {
        if (hosts.containsKey(t)) {
          hosts.put(t, m.getNodeId());
        }
      }));
    } catch (Exception e) {
      // every host unknown
    }
    return hosts;
  }

  /** Where a node keeps the store of {@code topic}'s log shard: its store, or the shard's directory inside. */
  static Path shardStore(Path store, String topic) {
    int shard = LogShards.indexOf(topic, LOG_SHARDS);
    return shard == 0 ? store : store.resolve("shard-" + shard);
  }

  /** Whether the node with store directory {@code store} holds a replica of {@code topic}'s log shard. */
  static boolean holds(Path store, String topic) {
    Path shardStore = shardStore(store, topic);
    return Files.exists(shardStore.resolve("CURRENT"));
  }

  /** LEADER or FOLLOWER, as the victim itself says (asked just before the action). */
  private static String roleOf(ClusterMember victim) {
    RaftInfo info = victim.raft();
    return info == null ? "unknown role" : info.getRole().toLowerCase(Locale.ROOT);
  }

  private void say(String line) {
    String stamped = LocalTime.now() + " " + line;
    System.out.println("[cluster-crash-loop] " + stamped);
    synchronized (journal) {
      journal.append(stamped).append('\n');
    }
  }

  /**
   * {@code ClusterCrashLoop ROUNDS DIR [--rate N] [--seed S] [--nodes N]}: runs the loop, prints the figures,
   * exits 0 if no guarantee was violated, 1 otherwise, 2 on bad arguments.
   */
  public static void main(String[] args) {
    Options options = null;
    try {
      if (args.length < 2 || args.length % 2 != 0) {
        throw new IllegalArgumentException("expected ROUNDS DIR and option pairs");
      }
      options = Options.of(Integer.parseInt(args[0]), Path.of(args[1]).toAbsolutePath());
      for (int i = 2; i + 1 < args.length; i += 2) {
        switch (args[i]) {
          case "--rate" -> options = new Options(options.rounds(), options.workDir(), Integer.parseInt(args[i + 1]),
              options.seed(), options.nodes());
          case "--seed" -> options = new Options(options.rounds(), options.workDir(), options.ratePerSecond(),
              Long.parseLong(args[i + 1]), options.nodes());
          case "--nodes" -> options = new Options(options.rounds(), options.workDir(), options.ratePerSecond(),
              options.seed(), Integer.parseInt(args[i + 1]));
          default -> throw new IllegalArgumentException("unknown option " + args[i]);
        }
      }
    } catch (IllegalArgumentException e) {
      System.err.println("ClusterCrashLoop: " + e.getMessage()
          + "\nusage: ClusterCrashLoop ROUNDS DIR [--rate N] [--seed S] [--nodes N]");
      System.exit(2);
    }
    int status;
    try {
      Workload.Report report = run(options);
      System.out.print(report.format());
      Files.writeString(options.workDir().resolve("cluster-crash-loop.report"), report.format());
      status = report.ok() ? 0 : 1;
    } catch (Throwable t) {
      System.err.println("ClusterCrashLoop failed: " + t);
      t.printStackTrace();
      status = 1;
    }
    System.exit(status);
  }
}
