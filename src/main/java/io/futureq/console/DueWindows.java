package io.futureq.console;

import io.futureq.api.ShardCalls;
import io.futureq.log.LogShards;
import io.futureq.log.TopicDueCounts;
import io.futureq.log.proto.DueWindowRequest;
import io.futureq.log.proto.DueWindowResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * What the console reads of a topic besides the admin API: its due counts over a window of seconds, whether it is
 * known and its pending count. From this node's replica when it holds the topic's log shard, else from a node that
 * does ({@link ShardCalls}).
 */
final class DueWindows {
  private static final String METHOD = "console.dueWindow";

  private final LogShards shards;
  private final ShardCalls calls;
  private final Executor executor;

  DueWindows(LogShards shards, ShardCalls calls, Executor executor) {
    this.shards = shards;
    this.calls = calls;
    this.executor = executor;
    calls.register(METHOD, DueWindowRequest.parser(), (shard, request) -> here(request));
  }

  /** The counts of {@code points} intervals of {@code stepSeconds} from {@code fromSecond}, and those overdue. */
  CompletableFuture<TopicDueCounts.Window> window(String topic, long fromSecond, long stepSeconds, int points,
      long nowSecond) {
    return read(DueWindowRequest.newBuilder().setTopic(topic).setFromSecond(fromSecond).setStepSeconds(stepSeconds)
        .setPoints(points).setNowSecond(nowSecond).build()).thenApply(r -> new TopicDueCounts.Window(
            r.getFromSecond(), r.getStepSeconds(), r.getCountsList().stream().mapToLong(Long::longValue).toArray(),
            r.getOverdue(), r.getTotal(), r.getFirstSecond()));
  }

  /** Whether {@code topic}'s shard has ever stored it (and it was not deleted). */
  CompletableFuture<Boolean> known(String topic) {
    return read(DueWindowRequest.newBuilder().setTopic(topic).build()).thenApply(DueWindowResponse::getKnown);
  }

  CompletableFuture<Long> pending(String topic) {
    return read(DueWindowRequest.newBuilder().setTopic(topic).build()).thenApply(DueWindowResponse::getPending);
  }

  private CompletableFuture<DueWindowResponse> read(DueWindowRequest request) {
    int shard = LogShards.indexOf(request.getTopic(), shards.count());
    return shards.get(shard).held() ? here(request)
        : calls.call(shard, METHOD, request, DueWindowResponse.parser());
  }

  /** Answers {@code request} from this node's replica, which holds the topic's shard. */
  private CompletableFuture<DueWindowResponse> here(DueWindowRequest request) {
    String topic = request.getTopic();
    DueWindowResponse.Builder out = DueWindowResponse.newBuilder().setKnown(shards.knowsTopic(topic))
        .setPending(shards.pending(topic));
    if (request.getPoints() == 0) {
      return CompletableFuture.completedFuture(out.build());
    }
    return shards.dueCounts(topic, executor).thenApply(counts -> {
      TopicDueCounts.Window w = counts.window(request.getFromSecond(), request.getStepSeconds(), request.getPoints(),
          request.getNowSecond());
      for (long n : w.counts()) {
        out.addCounts(n);
      }
      return out.setFromSecond(w.fromSecond()).setStepSeconds(w.stepSeconds()).setOverdue(w.overdue())
          .setTotal(w.total()).setFirstSecond(w.firstSecond()).build();
    });
  }
}
