package io.futureq.app;

import io.futureq.api.ShardCalls;
import io.futureq.config.ClusterSettings;
import io.futureq.log.proto.ReplicaGroup;
import io.futureq.log.proto.ReplicaStep;
import io.grpc.Status;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.grpc.GrpcServiceException;

/**
 * Membership changes (a node added to or removed from the Raft groups) run one at a time in the whole cluster: each
 * runs on the cluster's oldest member, whichever node the admin call came to, and one asked for while another runs
 * is refused. Two changes planned at once from the same groups would move the same replicas twice. The oldest member
 * is the node every member agrees on without asking (Pekko's singletons run there); only while it leaves or dies may
 * two members see different ones, and a change running on a dying node stops with it.
 */
final class MembershipChanges {
  static final String ADD = "membership.add";
  static final String REMOVE = "membership.remove";
  /** As long as a client waits for a change ({@code FutureQClient.MEMBERSHIP_TIMEOUT}). */
  static final Duration WAIT = Duration.ofMinutes(30);
  private static final String NODE_ROLE = ClusterSettings.nodeRole("");

  private final ShardCalls calls;
  private final Cluster cluster;
  private final String self;
  private final BiFunction<String, String, CompletionStage<Void>> add;
  private final Function<String, CompletionStage<Void>> remove;
  /** What the change running here does, or null: guarded by compare-and-set. */
  private final AtomicReference<String> running = new AtomicReference<>();

  /**
   * Registers this node's handlers of changes sent to it as the oldest member.
   *
   * @param self this node's id
   * @param add adds a node (id, Raft address) here, as the one change running
   * @param remove removes a node (id) here, as the one change running
   */
  MembershipChanges(ShardCalls calls, Cluster cluster, String self,
      BiFunction<String, String, CompletionStage<Void>> add, Function<String, CompletionStage<Void>> remove) {
    this.calls = calls;
    this.cluster = cluster;
    this.self = self;
    this.add = add;
    this.remove = remove;
    calls.register(ADD, ReplicaStep.parser(), (any, step) -> alone("adding " + step.getNodeId(),
        () -> add.apply(step.getNodeId(), step.getRaftAddress())).thenApply(v -> ReplicaGroup.getDefaultInstance()));
    calls.register(REMOVE, ReplicaStep.parser(), (any, step) -> alone("removing " + step.getNodeId(),
        () -> remove.apply(step.getNodeId())).thenApply(v -> ReplicaGroup.getDefaultInstance()));
  }

  CompletionStage<Void> add(String nodeId, String raftAddress) {
    return onOldest(ADD, nodeId, raftAddress, "adding " + nodeId, () -> add.apply(nodeId, raftAddress));
  }

  CompletionStage<Void> remove(String nodeId) {
    return onOldest(REMOVE, nodeId, "", "removing " + nodeId, () -> remove.apply(nodeId));
  }

  private CompletionStage<Void> onOldest(String method, String nodeId, String raftAddress, String what,
      Supplier<CompletionStage<Void>> here) {
    String oldest = oldest();
    if (oldest.equals(self)) {
      return alone(what, here);
    }
    ReplicaStep step = ReplicaStep.newBuilder().setNodeId(nodeId).setRaftAddress(raftAddress).build();
    return calls.callNode(oldest, method, step, ReplicaGroup.parser(), WAIT).thenApply(done -> null);
  }

  /** Runs {@code change} unless another runs here: then FAILED_PRECONDITION, naming it. */
  private CompletableFuture<Void> alone(String what, Supplier<CompletionStage<Void>> change) {
    if (!running.compareAndSet(null, what)) {
      return CompletableFuture.failedFuture(new GrpcServiceException(Status.FAILED_PRECONDITION.withDescription(
          "a membership change is under way (" + running.get() + ", on " + self + ", the cluster's oldest member, "
              + "which runs them one at a time): ask again once it has answered")));
    }
    CompletionStage<Void> done;
    try {
      done = change.get();
    } catch (RuntimeException e) {
      done = CompletableFuture.failedFuture(e);
    }
    return done.toCompletableFuture().whenComplete((v, failure) -> running.set(null));
  }

  /** The id of the oldest Up member that is a FutureQ node (this node's own when it knows of none). */
  private String oldest() {
    Member oldest = null;
    for (Member member : cluster.state().getMembers()) {
      if (member.status() == MemberStatus.up() && nodeId(member) != null
          && (oldest == null || member.isOlderThan(oldest))) {
        oldest = member;
      }
    }
    return oldest == null ? self : nodeId(oldest);
  }

  private static String nodeId(Member member) {
    return member.getRoles().stream().filter(role -> role.startsWith(NODE_ROLE))
        .map(role -> role.substring(NODE_ROLE.length())).findFirst().orElse(null);
  }
}
