package io.futureq.topic;

import io.futureq.group.ConsumerGroup;
import io.futureq.group.DeliveryLateness;
import io.futureq.log.GroupRegistry;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.actor.typed.javadsl.AskPattern;

/** Gathers a topic's stats: storage numbers and backlogs on the storage executor, live numbers from its groups. */
final class StatsQuery {
  private StatsQuery() {}

  static CompletableFuture<TopicStats> gather(TopicContext tc, String topic,
      Collection<ActorRef<ConsumerGroup.Command>> live, Scheduler scheduler) {
    long now = System.currentTimeMillis();
    CompletableFuture<TopicStatsReader.StorageStats> storage = CompletableFuture.supplyAsync(
        () -> TopicStatsReader.read(tc.store(), topic, tc.bucketMs(), now), tc.storageExecutor());
    CompletableFuture<List<GroupBacklog>> backlogs = CompletableFuture.supplyAsync(
        () -> GroupBacklogReader.read(tc.store(), topic, GroupRegistry.read(tc.store(), topic), tc.bucketMs(), now),
        tc.storageExecutor());
    List<CompletableFuture<ConsumerGroup.Stats>> running = new ArrayList<>();
    for (ActorRef<ConsumerGroup.Command> g : live) {
      running.add(AskPattern.<ConsumerGroup.Command, ConsumerGroup.Stats>ask(g, ConsumerGroup.GetStats::new,
          tc.askTimeout(), scheduler).toCompletableFuture());
    }
    return CompletableFuture.allOf(running.toArray(CompletableFuture[]::new)).thenCombine(storage, (v, s) -> s)
        .thenCombine(backlogs, (s, durable) -> {
          Map<String, ConsumerGroup.Stats> byName = new TreeMap<>();
          durable.forEach(b -> byName.put(b.group(), new ConsumerGroup.Stats(b.group(), 0, 0, 0, 0,
              DeliveryLateness.NONE)));
          running.forEach(f -> byName.put(f.join().group(), f.join()));
          return new TopicStats(topic, s.pending(), s.dueNow(), s.nextDueMs(), s.oldestDueAgeMs(),
              new ArrayList<>(byName.values()), durable);
        });
  }
}
