package io.futureq.api;

import com.google.protobuf.ByteString;
import io.futureq.api.grpc.DeleteGroupRequest;
import io.futureq.api.grpc.DeleteGroupResponse;
import io.futureq.api.grpc.DeleteTopicResponse;
import io.futureq.api.grpc.PurgeTopicResponse;
import io.futureq.api.grpc.RescheduleMessageRequest;
import io.futureq.api.grpc.RescheduleMessageResponse;
import io.futureq.config.ApiSettings;
import io.futureq.log.CommandResult;
import io.futureq.log.LogShards;
import io.futureq.log.proto.DeleteGroup;
import io.futureq.log.proto.LogCommand;
import io.futureq.log.proto.PurgeTopic;
import io.futureq.log.proto.Reschedule;
import io.futureq.storage.MessageIds;
import io.futureq.topic.TopicEntity;
import io.grpc.Status;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** The Admin calls that change durable state: each is one or more log commands, answered after commit. */
final class TopicAdmin {
  /** Messages one purge or topic-delete command removes; a bigger backlog takes several. */
  static final int PURGE_CHUNK = 10_000;

  private final ApiSettings settings;
  private final LogShards shards;
  private final HostSettle hostSettle;

  TopicAdmin(ApiSettings settings, LogShards shards, HostSettle hostSettle) {
    this.settings = settings;
    this.shards = shards;
    this.hostSettle = hostSettle;
  }

  CompletableFuture<DeleteGroupResponse> deleteGroup(DeleteGroupRequest in) {
    RequestValidator.topic("topic", in.getTopic());
    RequestValidator.name("group", in.getGroup());
    requireTopic(in.getTopic());
    LogCommand delete = LogCommand.newBuilder().setDeleteGroup(DeleteGroup.newBuilder().setTopic(in.getTopic())
        .setGroup(in.getGroup())).build();
    return append(in.getTopic(), delete).thenApply(result -> {
      CommandResult.GroupDeleted deleted = (CommandResult.GroupDeleted) result;
      if (!deleted.existed()) {
        throw new InvalidRequest(Status.Code.NOT_FOUND, "group: topic " + in.getTopic() + " has no group '"
            + in.getGroup() + "'");
      }
      return DeleteGroupResponse.newBuilder().setRemoved(deleted.removed().size()).build();
    }).thenCompose(response -> settled(in.getTopic(), response));
  }

  /** See {@link HostSettle}: the host appends a barrier, which orders after this request's writes. */
  private <T> CompletableFuture<T> settled(String topic, T response) {
    return hostSettle.then(topic, TopicEntity.Settle.EVERYTHING_BEFORE, response).toCompletableFuture();
  }

  CompletableFuture<PurgeTopicResponse> purge(String topic) {
    RequestValidator.topic("topic", topic);
    requireTopic(topic);
    return purgeFrom(topic, 0, 0, false, Long.MAX_VALUE)
        .thenApply(done -> PurgeTopicResponse.newBuilder().setRemoved(done.removed).build())
        .thenCompose(response -> settled(topic, response));
  }

  CompletableFuture<DeleteTopicResponse> deleteTopic(String topic) {
    RequestValidator.topic("topic", topic);
    requireTopic(topic);
    // Publishes racing the delete could otherwise keep it going: it gives up after the backlog it saw plus a margin.
    long rounds = shards.pending(topic) / PURGE_CHUNK + 10;
    return purgeFrom(topic, 0, 0, true, rounds).thenApply(done -> DeleteTopicResponse.newBuilder()
        .setRemoved(done.removed).addAllGroups(done.groups).build())
        .thenCompose(response -> settled(topic, response));
  }

  private record PurgeDone(long removed, List<String> groups) {}

  private CompletableFuture<PurgeDone> purgeFrom(String topic, long beforeEventId, long removedSoFar,
      boolean deleteTopic, long roundsLeft) {
    if (roundsLeft <= 0) {
      return CompletableFuture.failedFuture(new InvalidRequest(Status.Code.ABORTED, "topic: messages keep arriving "
          + "on topic " + topic + " faster than it is deleted (" + removedSoFar + " removed); stop its producers "
          + "and delete it again"));
    }
    LogCommand purge = LogCommand.newBuilder().setPurgeTopic(PurgeTopic.newBuilder().setTopic(topic)
        .setMaxMessages(PURGE_CHUNK).setBeforeEventId(beforeEventId).setDeleteTopic(deleteTopic)).build();
    return append(topic, purge).thenCompose(result -> {
      CommandResult.Purged purged = (CommandResult.Purged) result;
      if (!purged.existed()) {
        return CompletableFuture.failedFuture(notFound(topic));
      }
      long removed = removedSoFar + purged.removed().size();
      if (!purged.more() && (!deleteTopic || purged.topicDeleted())) {
        return CompletableFuture.completedFuture(new PurgeDone(removed, purged.deletedGroups()));
      }
      return purgeFrom(topic, purged.beforeEventId(), removed, deleteTopic, roundsLeft - 1);
    });
  }

  CompletableFuture<RescheduleMessageResponse> reschedule(RescheduleMessageRequest in) {
    RequestValidator.topic("topic", in.getTopic());
    requireTopic(in.getTopic());
    long now = System.currentTimeMillis();
    Reschedule.Builder move = Reschedule.newBuilder().setTopic(in.getTopic()).setDueMs(dueMs(in, now)).setNowMs(now);
    switch (in.getTargetCase()) {
      case KEY:
        if (in.getKey().isEmpty()) {
          throw InvalidRequest.invalid("key: must not be empty");
        }
        move.setKey(in.getKey());
        break;
      case MESSAGE_ID:
        move.setStorageKey(ByteString.copyFrom(MessageBrowser.storageKey(in.getTopic(), in.getMessageId())));
        break;
      default:
        throw InvalidRequest.invalid("target: set key or message_id");
    }
    return append(in.getTopic(), LogCommand.newBuilder().setReschedule(move).build()).thenApply(result -> {
      CommandResult.Rescheduled moved = (CommandResult.Rescheduled) result;
      if (!moved.existed()) {
        throw new InvalidRequest(Status.Code.NOT_FOUND, MessageBrowser.target(in.getTargetCase().name(), in.getKey(),
            in.getMessageId()) + ": no pending message on topic " + in.getTopic());
      }
      return RescheduleMessageResponse.newBuilder().setMessageId(MessageIds.of(moved.moved().storageKey()))
          .setPreviousMessageId(MessageIds.of(moved.from())).setDueUnixMs(moved.moved().message().getDueMs()).build();
    }).thenCompose(response -> settled(in.getTopic(), response));
  }

  /** As a publish's due time: never before now, at most futureq.api.max-delay ahead. */
  private long dueMs(RescheduleMessageRequest in, long nowMs) {
    long delay;
    switch (in.getDueCase()) {
      case DELAY_MS:
        if (in.getDelayMs() < 0) {
          throw InvalidRequest.invalid("delay_ms: must not be negative, got " + in.getDelayMs());
        }
        delay = in.getDelayMs();
        break;
      case DELIVER_AT_UNIX_MS:
        if (in.getDeliverAtUnixMs() < 0) {
          throw InvalidRequest.invalid("deliver_at_unix_ms: must not be negative, got " + in.getDeliverAtUnixMs());
        }
        delay = Math.max(0, in.getDeliverAtUnixMs() - nowMs);
        break;
      default:
        delay = 0;
    }
    if (delay > settings.maxDelay().toMillis()) {
      throw InvalidRequest.invalid((in.getDueCase() == RescheduleMessageRequest.DueCase.DELIVER_AT_UNIX_MS
          ? "deliver_at_unix_ms" : "delay_ms") + ": due " + delay + "ms from now, beyond the maximum delay of "
          + settings.maxDelay().toMillis() + "ms (futureq.api.max-delay)");
    }
    return nowMs + delay;
  }

  private void requireTopic(String topic) {
    if (!shards.knowsTopic(topic)) {
      throw notFound(topic);
    }
  }

  static InvalidRequest notFound(String topic) {
    return new InvalidRequest(Status.Code.NOT_FOUND, "topic: no topic named " + topic);
  }

  /** Through the write path of {@code topic}'s log shard. */
  private CompletableFuture<CommandResult> append(String topic, LogCommand command) {
    return shards.of(topic).log().append(command).toCompletableFuture()
        .orTimeout(settings.requestTimeout().toMillis(), TimeUnit.MILLISECONDS);
  }
}
