package io.futureq.api;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.futureq.api.grpc.CancelRequest;
import io.futureq.api.grpc.CancelResponse;
import io.futureq.api.grpc.ProducerPowerApi;
import io.futureq.api.grpc.PublishError;
import io.futureq.api.grpc.PublishRequest;
import io.futureq.api.grpc.PublishResponse;
import io.futureq.config.AckLevel;
import io.futureq.config.ApiSettings;
import io.futureq.config.LimitSettings;
import io.futureq.log.CommandResult;
import io.futureq.log.EventIds;
import io.futureq.log.EventLog;
import io.futureq.log.EventLog.LeaderAck;
import io.futureq.log.LogShards;
import io.futureq.log.proto.CancelMessage;
import io.futureq.log.proto.LogCommand;
import io.futureq.log.proto.NewMessage;
import io.futureq.metrics.ApiMetrics;
import io.futureq.security.Permission;
import io.futureq.security.PermissionDenied;
import io.futureq.security.Principal;
import io.futureq.security.RateLimited;
import io.futureq.storage.MessageIds;
import io.futureq.topic.TopicRouter;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.pekko.NotUsed;
import org.apache.pekko.grpc.javadsl.Metadata;
import org.apache.pekko.stream.javadsl.Source;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Producer API: checks the caller may produce on every topic of a request and is within its rate, validates,
 * appends one log command per request, answers after commit.
 */
public final class ProducerService implements ProducerPowerApi {
  private static final Logger LOG = LoggerFactory.getLogger(ProducerService.class);
  private static final String PUBLISH = "producer.publish";

  private final ApiSettings settings;
  private final RequestValidator validator;
  private final LogShards shards;
  private final ApiMetrics metrics = new ApiMetrics();
  private final PublishLimits limits;
  private final CallAccess access;
  private final HostSettle hostSettle;
  private final ShardCalls calls;
  private final Function<CancelRequest, CompletionStage<CancelResponse>> cancel;
  /** Named in every store batch, so that replicas configured otherwise cannot store it under other keys. */
  private final long bucketMs;

  /**
   * @param topics where a cancel is settled with the topic's host before it is answered
   * @param calls where requests about topics of shards this node does not hold go
   */
  public ProducerService(ApiSettings settings, LimitSettings limits, LogShards shards, TopicRouter topics,
      CallAccess access, ShardCalls calls) {
    this.settings = settings;
    this.calls = calls;
    calls.register(PUBLISH, PublishRequest.parser(),
        (shard, request) -> publishHere(request, PublishLimits.countByTopic(request), shard, () -> { }));
    this.cancel = calls.topical("producer.cancel", CancelRequest.parser(), CancelResponse.parser(),
        CancelRequest::getTopic, this::cancelHere);
    this.hostSettle = new HostSettle(topics, settings.requestTimeout());
    this.access = access;
    this.limits = new PublishLimits(limits, shards);
    this.bucketMs = shards.bucketMs();
    this.validator = new RequestValidator(settings);
    this.shards = shards;
  }

  @Override
  public Source<PublishResponse, NotUsed> publishStream(Source<PublishRequest, NotUsed> in, Metadata metadata) {
    Principal principal;
    try {
      principal = access.principal(metadata);
    } catch (RuntimeException e) {
      return Source.failed(GrpcErrors.toException(e));
    }
    return in.mapAsync(settings.publishParallelism(), request -> publishOne(request, principal)
        .handle((response, failure) -> {
          if (failure == null) {
            return response;
          }
          Status status = GrpcErrors.toStatus(failure);
          return PublishResponse.newBuilder().setRequestId(request.getRequestId())
              .setError(PublishError.newBuilder().setCode(status.getCode().value())
                  .setMessage(status.getDescription() == null ? status.getCode().name() : status.getDescription()))
              .build();
        }));
  }

  @Override
  public CompletionStage<PublishResponse> publish(PublishRequest request, Metadata metadata) {
    return access.unary(metadata, principal -> GrpcErrors.translate(publishOne(request, principal)));
  }

  private CompletableFuture<PublishResponse> publishOne(PublishRequest request, Principal principal) {
    Map<String, Integer> perTopic;
    int shard;
    try {
      // Each topic once, not once per message; in the order topics first appear, so a refusal names the same topic.
      perTopic = PublishLimits.countByTopic(request);
      for (String topic : perTopic.keySet()) {
        principal.require(Permission.PRODUCE, topic);
      }
      shard = oneShard(perTopic.keySet());
      if (!shards.get(shard).held()) {
        // Refused here if malformed; the node holding the shard checks its limits (which may refuse it after it took
        // from the principal's rate) and stores it.
        validator.ackLevel(request);
        validator.publish(request, System.currentTimeMillis(), bucketMs);
        access.admitPublish(principal, request);
        return calls.call(shard, PUBLISH, request, PublishResponse.parser());
      }
    } catch (InvalidRequest | PermissionDenied | RateLimited e) {
      return CompletableFuture.failedFuture(e);
    }
    return publishHere(request, perTopic, shard, () -> access.admitPublish(principal, request));
  }

  /**
   * Stores a publish whose shard this node holds (the caller checked its permissions), once it is valid and within
   * the limits; {@code admit} takes it from the principal's rate (nothing for one relayed from another node).
   */
  private CompletableFuture<PublishResponse> publishHere(PublishRequest request, Map<String, Integer> perTopic,
      int shard, Runnable admit) {
    long start = System.nanoTime();
    LogCommand command;
    AckLevel level;
    EventLog eventLog = shards.get(shard).log();
    try {
      level = validator.ackLevel(request);
      command = validator.publish(request, System.currentTimeMillis(), bucketMs);
      limits.check(perTopic);
      // Last: a request refused for any other reason takes nothing from the principal's rate.
      admit.run();
    } catch (InvalidRequest | PermissionDenied | RateLimited e) {
      return CompletableFuture.failedFuture(e);
    }
    metrics.batchSize.record(request.getMessagesCount());
    CompletableFuture<LeaderAck> onLeaderDisk = level == AckLevel.LEADER && !keyed(command)
        ? new CompletableFuture<>() : null;
    CompletableFuture<CommandResult> appended = (onLeaderDisk == null ? eventLog.append(command)
        : eventLog.append(command, onLeaderDisk)).toCompletableFuture();
    PublishResponse.Builder response = PublishResponse.newBuilder().setRequestId(request.getRequestId());
    if (level == AckLevel.NONE) {
      appended.whenComplete((r, failure) -> {
        if (failure != null) {
          LOG.warn("a publish with ack level NONE (request {}) was not stored: {}", request.getRequestId(),
              failure.getMessage());
        }
      });
      metrics.publishLatency.record(System.nanoTime() - start);
      return CompletableFuture.completedFuture(response.build());
    }
    CompletableFuture<PublishResponse> applied = appended.orTimeout(settings.requestTimeout().toMillis(),
        TimeUnit.MILLISECONDS).thenApply(result -> {
          for (CommandResult.StoredRef ref : ((CommandResult.Stored) result).messages()) {
            // The id's ASCII bytes as they go on the wire: no String to build and encode again.
            response.addMessageIdsBytes(UnsafeByteOperations.unsafeWrap(MessageIds.asciiOf(ref.storageKey())))
                .addDuplicate(ref.duplicate());
          }
          return response.build();
        });
    if (onLeaderDisk == null) {
      return applied.thenApply(built -> recordLatency(built, start));
    }
    return firstOf(onLeaderDisk.thenApply(at -> onLeaderDisk(command, at, request.getRequestId())), applied, request)
        .thenApply(built -> recordLatency(built, start));
  }

  /**
   * The log shard every topic of a request belongs to. A request is one command of one shard's log, atomic; one whose
   * topics lie in different shards is refused, naming them (README, "Log shards").
   */
  private int oneShard(Collection<String> topics) {
    Map<Integer, List<String>> byShard = new TreeMap<>();
    for (String topic : topics) {
      byShard.computeIfAbsent(LogShards.indexOf(topic, shards.count()), k -> new ArrayList<>()).add(topic);
    }
    if (byShard.size() > 1) {
      StringBuilder which = new StringBuilder();
      byShard.forEach((shard, named) -> which.append(which.length() == 0 ? "" : "; ").append("log shard ")
          .append(shard).append(": ").append(String.join(", ", named)));
      throw InvalidRequest.invalid("messages: the request's topics lie in " + byShard.size() + " log shards of "
          + shards.count() + " (" + which + "); a request is atomic within one shard: publish each shard's topics in "
          + "a request of their own");
    }
    return byShard.isEmpty() ? 0 : byShard.keySet().iterator().next();
  }

  private PublishResponse recordLatency(PublishResponse response, long start) {
    metrics.publishLatency.record(System.nanoTime() - start);
    return response;
  }

  /**
   * Whether a message has a dedup key: only applying it tells whether it is a duplicate, so such a publish is
   * answered once applied, at any ack level.
   */
  private static boolean keyed(LogCommand command) {
    for (NewMessage m : command.getStore().getMessagesList()) {
      if (!m.getKey().isEmpty()) {
        return true;
      }
    }
    return false;
  }

  /** The ids the messages will have, from where the leader's log put them ({@link EventIds}). */
  private PublishResponse onLeaderDisk(LogCommand command, LeaderAck at, String requestId) {
    // Its own builder: the applied answer may be built at the same time on another thread.
    PublishResponse.Builder response = PublishResponse.newBuilder().setRequestId(requestId);
    int slot = at.firstSlot();
    for (NewMessage m : command.getStore().getMessagesList()) {
      byte[] key = EventIds.storageKey(m, bucketMs, EventIds.of(at.logIndex(), slot++));
      response.addMessageIdsBytes(UnsafeByteOperations.unsafeWrap(MessageIds.asciiOf(key))).addDuplicate(false);
    }
    return response.build();
  }

  /**
   * The answer at the leader's disk, or the applied one if it comes first (standalone it always does); a failure
   * only while neither came. A publish answered at the leader's disk and then not applied is logged: that is the
   * loss {@code ACK_LEVEL_LEADER} allows.
   */
  private static CompletableFuture<PublishResponse> firstOf(CompletableFuture<PublishResponse> onDisk,
      CompletableFuture<PublishResponse> applied, PublishRequest request) {
    CompletableFuture<PublishResponse> answer = new CompletableFuture<>();
    onDisk.thenAccept(answer::complete);
    applied.whenComplete((response, failure) -> {
      if (failure == null) {
        answer.complete(response);
      } else if (!answer.completeExceptionally(failure)) {
        LOG.warn("a publish answered at ack level LEADER (request {}) was not applied: {}", request.getRequestId(),
            failure.getMessage());
      }
    });
    return answer;
  }

  @Override
  public CompletionStage<CancelResponse> cancel(CancelRequest request, Metadata metadata) {
    return access.unary(metadata, Permission.PRODUCE, request.getTopic(), () -> cancel.apply(request));
  }

  private CompletionStage<CancelResponse> cancelHere(CancelRequest request) {
    CancelMessage.Builder cancel = CancelMessage.newBuilder().setTopic(request.getTopic());
    try {
      RequestValidator.topic("topic", request.getTopic());
      switch (request.getTargetCase()) {
        case KEY:
          if (request.getKey().isEmpty()) {
            throw InvalidRequest.invalid("key: must not be empty");
          }
          cancel.setKey(request.getKey());
          break;
        case MESSAGE_ID:
          cancel.setStorageKey(ByteString.copyFrom(storageKey(request)));
          break;
        default:
          throw InvalidRequest.invalid("target: set key or message_id");
      }
    } catch (InvalidRequest e) {
      return GrpcErrors.translate(CompletableFuture.failedFuture(e));
    }
    EventLog eventLog = shards.of(request.getTopic()).log();
    return GrpcErrors.translate(eventLog.append(LogCommand.newBuilder().setCancel(cancel).build()).toCompletableFuture()
        .thenCompose(result -> settled((CommandResult.Cancelled) result))
        .orTimeout(settings.requestTimeout().toMillis(), TimeUnit.MILLISECONDS)
        .thenApply(cancelled -> {
          CancelResponse.Builder out = CancelResponse.newBuilder().setExisted(cancelled.existed());
          if (cancelled.existed()) {
            out.setMessageId(MessageIds.of(cancelled.storageKey()));
          }
          return out.build();
        }));
  }

  /** See {@link HostSettle}: nothing is delivered after a cancel's answer. */
  private CompletionStage<CommandResult.Cancelled> settled(CommandResult.Cancelled cancelled) {
    return cancelled.existed() ? hostSettle.then(cancelled.topic(), cancelled.logIndex(), cancelled)
        : CompletableFuture.completedFuture(cancelled);
  }

  private static byte[] storageKey(CancelRequest request) {
    try {
      return MessageIds.storageKey(request.getTopic(), request.getMessageId());
    } catch (IllegalArgumentException e) {
      throw InvalidRequest.invalid("message_id: " + e.getMessage());
    }
  }
}
