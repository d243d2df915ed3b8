package io.futureq.topic;

import io.futureq.group.DueMessage;
import io.futureq.log.CommandResult;
import io.futureq.log.EventLog;
import io.futureq.metrics.TopicMetrics;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells topic entities what the log applied: new messages (so due timers and groups see them) and
 * cancelled or expired ones (so groups drop them). Runs on the log's thread, in log order, which
 * the groups rely on.
 */
public final class AppliedAnnouncer implements EventLog.AppliedListener {
  private static final Logger LOG = LoggerFactory.getLogger(AppliedAnnouncer.class);
  private final TopicRouter router;
  private final LocalTopics localTopics;
  private final boolean replicated;
  private final BooleanSupplier counts;

  /**
   * @param replicated true when every node applies every entry (Raft): then an entity not hosted here is left
   *     alone, since each entity must hear of messages from the replica it reads
   * @param counts whether this replica counts what it applies in the cluster-wide counters
   *     ({@code futureq_published_total}, {@code futureq_cancelled_total}) now: always standalone, only while
   *     leading the Raft group in a cluster, so that each message is counted once, not once per replica
   */
  public AppliedAnnouncer(TopicRouter router, LocalTopics localTopics, boolean replicated, BooleanSupplier counts) {
    this.router = router;
    this.localTopics = localTopics;
    this.replicated = replicated;
    this.counts = counts;
  }

  /**
   * Straight to the topic's entity when it runs here: no hop through sharding's region and shard actors. One that
   * does not run here is not told: in a cluster another replica tells it where it runs; standalone it is started
   * through sharding ({@link TopicEntity.Wake}), and reads the store, which has this entry already, once it is
   * listed (it lists itself before anything else). An announcement never goes through sharding, so none can be
   * overtaken by a later one sent straight.
   */
  private void tell(String topic, TopicEntity.Command command) {
    Optional<ActorRef<TopicEntity.Command>> entity = localTopics.find(topic);
    if (entity.isPresent()) {
      entity.get().tell(command);
    } else if (!replicated) {
      router.tell(topic, new TopicEntity.Wake());
    }
  }

  @Override
  public void applied(long index, CommandResult result) {
    if (result instanceof CommandResult.LeaderEntryApplied entry) {
      entry.results().forEach(inner -> applied(index, inner));
    } else if (result instanceof CommandResult.Stored stored) {
      announceStored(index, stored.messages());
      wakeIfNowhere(stored);
    } else if (result instanceof CommandResult.DeadLettered dl && dl.copy() != null) {
      announceStored(index, List.of(dl.copy()));
    } else if (result instanceof CommandResult.Cancelled c && c.existed()) {
      if (counts.getAsBoolean()) {
        TopicMetrics.of(c.topic()).cancelled.increment();
      }
      tell(c.topic(), new TopicEntity.MessagesRemoved(List.of(c.storageKey())));
    } else if (result instanceof CommandResult.Removed r && r.reason() == CommandResult.Reason.EXPIRED
        && !r.storageKeys().isEmpty()) {
      tell(r.topic(), new TopicEntity.MessagesRemoved(r.storageKeys()));
    } else {
      announceAdministration(index, result);
    }
  }

  private void announceAdministration(long index, CommandResult result) {
    if (result instanceof CommandResult.Rescheduled r && r.existed()) {
      tell(r.topic(), new TopicEntity.MessageMoved(index, r.from(),
          new DueMessage(r.moved().storageKey(), r.moved().message()), r.ackedBy()));
    } else if (result instanceof CommandResult.GroupDeleted g && g.existed()) {
      tell(g.topic(), new TopicEntity.GroupsDeleted(List.of(g.group()),
          "group '" + g.group() + "' of topic " + g.topic() + " was deleted"));
    } else if (result instanceof CommandResult.Purged p) {
      if (!p.removed().isEmpty()) {
        tell(p.topic(), new TopicEntity.MessagesRemoved(p.removed()));
      }
      if (p.topicDeleted()) {
        tell(p.topic(), new TopicEntity.GroupsDeleted(p.deletedGroups(), "topic " + p.topic() + " was deleted"));
      }
    }
  }

  /**
   * In a cluster, each replica tells only the entities it hosts, so a topic whose entity runs nowhere (new, or
   * emptied while its host left) would not hear of its new messages: the leading replica starts it through sharding
   * when the topic's pending count leaves 0, once, not on every publish. Standalone {@link #tell} wakes it.
   */
  private void wakeIfNowhere(CommandResult.Stored stored) {
    if (replicated && !stored.newlyPending().isEmpty() && counts.getAsBoolean()) {
      stored.newlyPending().forEach(topic -> router.tell(topic, new TopicEntity.Wake()));
    }
  }

  /** Every entity hosted here read a store that is gone: each starts over. */
  @Override
  public void storeReplaced(long appliedIndex) {
    var hosted = localTopics.all();
    LOG.info("the store was replaced by a snapshot at log index {}: the {} topics hosted here start over",
        appliedIndex, hosted.size());
    hosted.forEach(entity -> entity.tell(new TopicEntity.StoreReplaced(appliedIndex)));
  }

  private void announceStored(long index, List<CommandResult.StoredRef> refs) {
    Map<String, List<DueMessage>> byTopic = new LinkedHashMap<>();
    // Messages of one topic come in runs (a request nearly always names one topic): one lookup per run.
    String runTopic = null;
    List<DueMessage> run = null;
    for (CommandResult.StoredRef ref : refs) {
      if (!ref.duplicate()) {
        String topic = ref.message().getTopic();
        if (!topic.equals(runTopic)) {
          runTopic = topic;
          run = byTopic.computeIfAbsent(topic, t -> new ArrayList<>(refs.size()));
        }
        run.add(new DueMessage(ref.storageKey(), ref.message()));
      }
    }
    boolean count = counts.getAsBoolean();
    byTopic.forEach((topic, messages) -> {
      if (count) {
        TopicMetrics.of(topic).published.increment(messages.size());
      }
      tell(topic, new TopicEntity.MessagesStored(index, messages));
    });
  }
}
