package io.futureq.api;

import com.google.protobuf.InvalidProtocolBufferException;
import io.futureq.api.grpc.AddRaftPeerRequest;
import io.futureq.api.grpc.AdminPowerApi;
import io.futureq.api.grpc.ClusterInfo;
import io.futureq.api.grpc.DeleteGroupRequest;
import io.futureq.api.grpc.DeleteGroupResponse;
import io.futureq.api.grpc.DeleteTopicRequest;
import io.futureq.api.grpc.DeleteTopicResponse;
import io.futureq.api.grpc.GetClusterInfoRequest;
import io.futureq.api.grpc.GetMessageRequest;
import io.futureq.api.grpc.GetTopicStatsRequest;
import io.futureq.api.grpc.GroupStats;
import io.futureq.api.grpc.Lateness;
import io.futureq.api.grpc.ListMessagesRequest;
import io.futureq.api.grpc.ListMessagesResponse;
import io.futureq.api.grpc.ListTopicsRequest;
import io.futureq.api.grpc.ListTopicsResponse;
import io.futureq.api.grpc.LogShardInfo;
import io.futureq.api.grpc.Member;
import io.futureq.api.grpc.PendingMessage;
import io.futureq.api.grpc.PurgeTopicRequest;
import io.futureq.api.grpc.PurgeTopicResponse;
import io.futureq.api.grpc.RaftInfo;
import io.futureq.api.grpc.RemoveRaftPeerRequest;
import io.futureq.api.grpc.RescheduleMessageRequest;
import io.futureq.api.grpc.RescheduleMessageResponse;
import io.futureq.api.grpc.TopicStats;
import io.futureq.api.grpc.TopicSummary;
import io.futureq.config.ApiSettings;
import io.futureq.log.GroupRegistry;
import io.futureq.log.LogShards;
import io.futureq.log.proto.TopicMeta;
import io.futureq.security.Permission;
import io.futureq.security.Principal;
import io.futureq.storage.OrderedStore;
import io.futureq.storage.StorageKeys;
import io.futureq.topic.GroupBacklog;
import io.futureq.topic.TopicRouter;
import io.grpc.Status;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.grpc.javadsl.Metadata;

/** Admin API: topic listings and stats, message browsing and administration, cluster membership. */
public final class AdminService implements AdminPowerApi {
  /** Longest GetClusterInfo waits for a member's description: one that just crashed must not hold it. */
  private static final Duration DESCRIBE_TIMEOUT = Duration.ofSeconds(2);
  private static final String LIST_SHARD_TOPICS = "admin.listShardTopics";
  private static final String LOG_SHARD_INFO = "admin.logShardInfo";
  /** The role GetClusterInfo gives a log shard this node holds no replica of. */
  public static final String NOT_HELD = "NOT_HELD";
  private final ActorSystem<?> system;
  private final Executor storageExecutor;
  private final TopicRouter router;
  private final String nodeId;
  private final Duration askTimeout;
  private final RaftMembership raft;
  private final String storage;
  private final LogShards shards;
  private final TopicAdmin topics;
  private final MessageBrowser browser;
  /**
   * What each member (by Pekko address) last said of itself: a member that is unreachable, or slow
   * to answer, is shown with it instead of without a node id and gRPC address.
   */
  private final Map<String, NodeDirectory.Description> lastDescribed = new ConcurrentHashMap<>();
  private final CallAccess access;
  private final ShardCalls calls;
  // Each request about a topic, run here or, when this node does not hold the topic's shard, where it is held.
  private final Function<GetTopicStatsRequest, CompletionStage<TopicStats>> stats;
  private final Function<ListMessagesRequest, CompletionStage<ListMessagesResponse>> listMessages;
  private final Function<GetMessageRequest, CompletionStage<PendingMessage>> getMessage;
  private final Function<RescheduleMessageRequest, CompletionStage<RescheduleMessageResponse>> reschedule;
  private final Function<DeleteGroupRequest, CompletionStage<DeleteGroupResponse>> deleteGroup;
  private final Function<PurgeTopicRequest, CompletionStage<PurgeTopicResponse>> purge;
  private final Function<DeleteTopicRequest, CompletionStage<DeleteTopicResponse>> deleteTopic;

  /**
   * @param raft the Raft group in clustered mode; null when standalone
   * @param storage the storage engine's name, as in {@code futureq.storage.engine}
   * @param calls where requests about topics of shards this node does not hold go
   */
  public AdminService(ActorSystem<?> system, LogShards shards, Executor storageExecutor, TopicRouter router,
      String nodeId, Duration askTimeout, RaftMembership raft, String storage, ApiSettings api, CallAccess access,
      ShardCalls calls) {
    this.access = access;
    this.calls = calls;
    this.shards = shards;
    this.topics = new TopicAdmin(api, shards, new HostSettle(router, api.requestTimeout()));
    this.browser = new MessageBrowser(shards);
    this.stats = calls.topical("admin.getTopicStats", GetTopicStatsRequest.parser(), TopicStats.parser(),
        GetTopicStatsRequest::getTopic, this::getTopicStats);
    this.listMessages = calls.topical("admin.listMessages", ListMessagesRequest.parser(),
        ListMessagesResponse.parser(), ListMessagesRequest::getTopic,
        in -> read(() -> browser.validate(in), () -> browser.list(in)));
    this.getMessage = calls.topical("admin.getMessage", GetMessageRequest.parser(), PendingMessage.parser(),
        GetMessageRequest::getTopic, in -> read(() -> browser.validate(in), () -> browser.get(in)));
    this.reschedule = calls.topical("admin.rescheduleMessage", RescheduleMessageRequest.parser(),
        RescheduleMessageResponse.parser(), RescheduleMessageRequest::getTopic,
        in -> write(() -> topics.reschedule(in)));
    this.deleteGroup = calls.topical("admin.deleteGroup", DeleteGroupRequest.parser(), DeleteGroupResponse.parser(),
        DeleteGroupRequest::getTopic, in -> write(() -> topics.deleteGroup(in)));
    this.purge = calls.topical("admin.purgeTopic", PurgeTopicRequest.parser(), PurgeTopicResponse.parser(),
        PurgeTopicRequest::getTopic, in -> write(() -> topics.purge(in.getTopic())));
    this.deleteTopic = calls.topical("admin.deleteTopic", DeleteTopicRequest.parser(), DeleteTopicResponse.parser(),
        DeleteTopicRequest::getTopic, in -> write(() -> topics.deleteTopic(in.getTopic())));
    calls.register(LOG_SHARD_INFO, GetClusterInfoRequest.parser(),
        (shard, in) -> CompletableFuture.completedFuture(raft.shardInfo(shard)));
    calls.register(LIST_SHARD_TOPICS, ListTopicsRequest.parser(), (shard, in) -> CompletableFuture.supplyAsync(
        () -> ListTopicsResponse.newBuilder().addAllTopics(readTopics(shards.get(shard), topic -> true)).build(),
        storageExecutor));
    this.system = system;
    this.storageExecutor = storageExecutor;
    this.router = router;
    this.nodeId = nodeId;
    this.askTimeout = askTimeout;
    this.raft = raft;
    this.storage = storage;
  }

  @Override
  public CompletionStage<ListTopicsResponse> listTopics(ListTopicsRequest in, Metadata metadata) {
    // Any caller may list, and sees the topics it holds some permission on.
    return access.unary(metadata, principal -> GrpcErrors.translate(listTopics(principal)));
  }

  /** Every shard's topics, by name: those of shards held elsewhere asked of a node holding them. */
  private CompletableFuture<ListTopicsResponse> listTopics(Principal principal) {
    List<CompletableFuture<List<TopicSummary>>> parts = new ArrayList<>();
    for (LogShards.Shard shard : shards.all()) {
      parts.add(shard.held()
          ? CompletableFuture.supplyAsync(() -> readTopics(shard, principal::seesTopic), storageExecutor)
          : calls.call(shard.index(), LIST_SHARD_TOPICS, ListTopicsRequest.getDefaultInstance(),
              ListTopicsResponse.parser()).thenApply(r -> r.getTopicsList().stream()
                  .filter(t -> principal.seesTopic(t.getName())).toList()));
    }
    return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).thenApply(done -> {
      List<TopicSummary> topics = new ArrayList<>();
      parts.forEach(part -> topics.addAll(part.join()));
      topics.sort(Comparator.comparing(TopicSummary::getName));
      return ListTopicsResponse.newBuilder().addAllTopics(topics).build();
    });
  }

  /** The topics of {@code shard}, held here, that {@code shown} lets through. */
  private static List<TopicSummary> readTopics(LogShards.Shard shard, Predicate<String> shown) {
    List<TopicSummary> topics = new ArrayList<>();
    byte[] prefix = StorageKeys.topicMetaPrefix();
    try (OrderedStore.View view = shard.store().view(); OrderedStore.RangeIterator it =
        view.range(OrderedStore.Space.INDEX, prefix, StorageKeys.prefixEnd(prefix))) {
      for (; it.valid(); it.next()) {
        TopicMeta meta = TopicMeta.parseFrom(it.value());
        if (shown.test(meta.getName())) {
          topics.add(TopicSummary.newBuilder().setName(meta.getName()).setPending(meta.getPending())
              .addAllGroups(GroupRegistry.read(shard.store(), meta.getName())).build());
        }
      }
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("corrupt topic metadata", e);
    }
    return topics;
  }

  @Override
  public CompletionStage<TopicStats> getTopicStats(GetTopicStatsRequest in, Metadata metadata) {
    return access.unary(metadata, Permission.ADMIN, in.getTopic(), () -> stats.apply(in));
  }

  private CompletionStage<TopicStats> getTopicStats(GetTopicStatsRequest in) {
    try {
      RequestValidator.topic("topic", in.getTopic());
      if (!shards.knowsTopic(in.getTopic())) {
        // Checked here, before the topic's entity starts: a typo must not start one (nor its metric series).
        throw TopicAdmin.notFound(in.getTopic());
      }
    } catch (InvalidRequest e) {
      return GrpcErrors.translate(CompletableFuture.failedFuture(e));
    }
    return GrpcErrors.translate(router.stats(in.getTopic()).thenApply(AdminService::toProto));
  }

  @Override
  public CompletionStage<ListMessagesResponse> listMessages(ListMessagesRequest in, Metadata metadata) {
    return access.unary(metadata, Permission.ADMIN, in.getTopic(), () -> listMessages.apply(in));
  }

  @Override
  public CompletionStage<PendingMessage> getMessage(GetMessageRequest in, Metadata metadata) {
    return access.unary(metadata, Permission.ADMIN, in.getTopic(), () -> getMessage.apply(in));
  }

  @Override
  public CompletionStage<RescheduleMessageResponse> rescheduleMessage(RescheduleMessageRequest in,
      Metadata metadata) {
    return access.unary(metadata, Permission.ADMIN, in.getTopic(), () -> reschedule.apply(in));
  }

  @Override
  public CompletionStage<DeleteGroupResponse> deleteGroup(DeleteGroupRequest in, Metadata metadata) {
    return access.unary(metadata, Permission.ADMIN, in.getTopic(), () -> deleteGroup.apply(in));
  }

  @Override
  public CompletionStage<PurgeTopicResponse> purgeTopic(PurgeTopicRequest in, Metadata metadata) {
    return access.unary(metadata, Permission.ADMIN, in.getTopic(), () -> purge.apply(in));
  }

  @Override
  public CompletionStage<DeleteTopicResponse> deleteTopic(DeleteTopicRequest in, Metadata metadata) {
    return access.unary(metadata, Permission.ADMIN, in.getTopic(), () -> deleteTopic.apply(in));
  }

  private <T> CompletionStage<T> read(Runnable validate, Supplier<T> read) {
    try {
      validate.run();
    } catch (InvalidRequest e) {
      return GrpcErrors.translate(CompletableFuture.failedFuture(e));
    }
    return GrpcErrors.translate(CompletableFuture.supplyAsync(read, storageExecutor));
  }

  private static <T> CompletionStage<T> write(Supplier<CompletableFuture<T>> call) {
    try {
      return GrpcErrors.translate(call.get());
    } catch (InvalidRequest e) {
      return GrpcErrors.translate(CompletableFuture.failedFuture(e));
    }
  }

  // fqn: the broker's TopicStats, beside the gRPC message of the same name (imported)
  private static TopicStats toProto(io.futureq.topic.TopicStats s) {
    TopicStats.Builder out = TopicStats.newBuilder().setTopic(s.topic())
        .setPending(s.pending()).setDueNow(s.dueNow()).setNextDueUnixMs(s.nextDueMs())
        .setOldestDueAgeMs(s.oldestDueAgeMs());
    Map<String, GroupBacklog> backlogs = new HashMap<>();
    s.backlogs().forEach(b -> backlogs.put(b.group(), b));
    GroupBacklog none = new GroupBacklog("", 0, 0);
    s.groups().forEach(g -> out.addGroups(GroupStats.newBuilder().setName(g.group()).setConsumers(g.consumers())
        .setLag(backlogs.getOrDefault(g.group(), none).lag())
        .setOldestUnackedDueAgeMs(backlogs.getOrDefault(g.group(), none).oldestUnackedDueAgeMs())
        .setInFlight(g.inFlight()).setReady(g.ready()).setDelayed(g.delayed()).setLateness(Lateness.newBuilder()
            .setDeliveries(g.lateness().deliveries()).setP50Us(g.lateness().p50Us()).setP90Us(g.lateness().p90Us())
            .setP99Us(g.lateness().p99Us()).setP999Us(g.lateness().p999Us()).setMaxUs(g.lateness().maxUs()))));
    return out.build();
  }

  @Override
  public CompletionStage<ClusterInfo> getClusterInfo(GetClusterInfoRequest in, Metadata metadata) {
    // Any caller may read the members: clients ask it at start to learn where to fail over.
    return access.unary(metadata, principal -> clusterInfo());
  }

  private CompletionStage<ClusterInfo> clusterInfo() {
    Cluster cluster = Cluster.get(system);
    Duration describeWithin = askTimeout.compareTo(DESCRIBE_TIMEOUT) < 0 ? askTimeout : DESCRIBE_TIMEOUT;
    return GrpcErrors.translate(NodeDirectory.describeReachable(system, describeWithin).thenApply(nodes -> {
      nodes.forEach(n -> lastDescribed.put(n.address(), n));
      Set<String> members = new HashSet<>();
      Set<String> unreachable = new HashSet<>();
      cluster.state().getUnreachable().forEach(m -> unreachable.add(m.address().toString()));
      ClusterInfo.Builder out = ClusterInfo.newBuilder().setMode(raft == null ? "standalone" : "cluster")
          .setSelfNodeId(nodeId).setStorage(storage).setLogShards(shards.count());
      cluster.state().getMembers().forEach(m -> {
        String address = m.address().toString();
        members.add(address);
        Member.Builder member = Member.newBuilder().setAddress(address).setStatus(m.status().toString())
            .setSelf(m.address().equals(cluster.selfMember().address())).addAllRoles(m.getRoles())
            .setReachable(!unreachable.contains(address));
        NodeDirectory.Description d = lastDescribed.get(address);
        if (d != null) {
          member.setNodeId(d.nodeId()).setGrpcAddress(d.grpcAddress()).addAllTopics(new TreeSet<>(d.topics()));
        }
        out.addMembers(member);
      });
      lastDescribed.keySet().retainAll(members);
      return out;
    }).thenCompose(out -> raft == null ? CompletableFuture.completedFuture(out.build())
        : withEveryShard(raft.status()).thenApply(status -> out.setRaft(status).build())));
  }

  /**
   * {@code status} with the shards this node does not hold described too, as a node holding each sees it (role
   * {@code NOT_HELD}); a shard none of whose nodes answers is left out.
   */
  private CompletableFuture<RaftInfo> withEveryShard(RaftInfo status) {
    Set<Integer> described = new HashSet<>();
    status.getLogShardsList().forEach(shard -> described.add(shard.getShard()));
    List<CompletableFuture<LogShardInfo>> others = new ArrayList<>();
    for (int k = 0; k < shards.count(); k++) {
      if (!described.contains(k)) {
        others.add(calls.call(k, LOG_SHARD_INFO, GetClusterInfoRequest.getDefaultInstance(), LogShardInfo.parser())
            .thenApply(info -> info.toBuilder().setRole(NOT_HELD).build())
            .exceptionally(failure -> null));
      }
    }
    return CompletableFuture.allOf(others.toArray(CompletableFuture[]::new)).thenApply(done -> {
      List<LogShardInfo> all = new ArrayList<>(status.getLogShardsList());
      others.stream().map(CompletableFuture::join).filter(Objects::nonNull).forEach(all::add);
      all.sort(Comparator.comparingInt(LogShardInfo::getShard));
      return status.toBuilder().clearLogShards().addAllLogShards(all).build();
    });
  }

  @Override
  public CompletionStage<RaftInfo> addRaftPeer(AddRaftPeerRequest in, Metadata metadata) {
    return access.unary(metadata, Permission.CLUSTER, "", () -> addRaftPeer(in));
  }

  private CompletionStage<RaftInfo> addRaftPeer(AddRaftPeerRequest in) {
    try {
      requireCluster();
      RequestValidator.name("node_id", in.getNodeId());
      if (!in.getRaftAddress().matches("[^:\\s]+:\\d{1,5}")) {
        throw InvalidRequest.invalid("raft_address: must be HOST:PORT, got '" + in.getRaftAddress() + "'");
      }
    } catch (InvalidRequest e) {
      return GrpcErrors.translate(CompletableFuture.failedFuture(e));
    }
    return GrpcErrors.translate(raft.add(in.getNodeId(), in.getRaftAddress())
        .thenCompose(v -> withEveryShard(raft.status())));
  }

  @Override
  public CompletionStage<RaftInfo> removeRaftPeer(RemoveRaftPeerRequest in, Metadata metadata) {
    return access.unary(metadata, Permission.CLUSTER, "", () -> removeRaftPeer(in));
  }

  private CompletionStage<RaftInfo> removeRaftPeer(RemoveRaftPeerRequest in) {
    try {
      requireCluster();
      RequestValidator.name("node_id", in.getNodeId());
    } catch (InvalidRequest e) {
      return GrpcErrors.translate(CompletableFuture.failedFuture(e));
    }
    return GrpcErrors.translate(raft.remove(in.getNodeId()).thenCompose(v -> withEveryShard(raft.status())));
  }

  private void requireCluster() {
    if (raft == null) {
      throw new InvalidRequest(Status.Code.FAILED_PRECONDITION,
          "this broker runs standalone (futureq.cluster.enabled = false): there is no Raft group");
    }
  }
}
