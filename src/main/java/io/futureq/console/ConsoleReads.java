package io.futureq.console;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.futureq.api.grpc.AdminPowerApi;
import io.futureq.api.grpc.ClusterInfo;
import io.futureq.api.grpc.GetClusterInfoRequest;
import io.futureq.api.grpc.GetMessageRequest;
import io.futureq.api.grpc.GetTopicStatsRequest;
import io.futureq.api.grpc.GroupStats;
import io.futureq.api.grpc.ListMessagesRequest;
import io.futureq.api.grpc.ListTopicsRequest;
import io.futureq.api.grpc.LogShardInfo;
import io.futureq.api.grpc.Member;
import io.futureq.api.grpc.PendingMessage;
import io.futureq.api.grpc.TopicStats;
import io.futureq.api.grpc.TopicSummary;
import io.futureq.log.BrokerStateMachine;
import io.futureq.security.Permission;
import io.futureq.security.Principal;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.grpc.javadsl.Metadata;

/** The console's reads, each the Admin API's call of the same name, through a JSON mapping. */
final class ConsoleReads {
  /** Payload bytes shown by a preview; the full payload is {@code GET .../messages/ID?payload=full}. */
  static final int PREVIEW_BYTES = 1024;

  private final AdminPowerApi admin;
  private final DueWindows counts;

  ConsoleReads(AdminPowerApi admin, DueWindows counts) {
    this.admin = admin;
    this.counts = counts;
  }

  CompletableFuture<ClusterInfo> cluster(Metadata md) {
    return admin.getClusterInfo(GetClusterInfoRequest.getDefaultInstance(), md).toCompletableFuture();
  }

  static ObjectNode clusterJson(ClusterInfo info) {
    ObjectNode out = ConsoleReply.object().put("mode", info.getMode()).put("selfNodeId", info.getSelfNodeId())
        .put("storage", info.getStorage());
    ArrayNode members = out.putArray("members");
    for (Member m : info.getMembersList()) {
      ObjectNode j = members.addObject().put("nodeId", m.getNodeId()).put("address", m.getAddress())
          .put("grpcAddress", m.getGrpcAddress()).put("status", m.getStatus()).put("self", m.getSelf())
          .put("reachable", m.getReachable()).put("topics", m.getTopicsCount());
      m.getRolesList().forEach(j.putArray("roles")::add);
    }
    if (info.hasRaft()) {
      ObjectNode raft = out.putObject("raft").put("leaderId", info.getRaft().getLeaderId())
          .put("role", info.getRaft().getRole()).put("term", info.getRaft().getTerm())
          .put("commitIndex", info.getRaft().getCommitIndex()).put("appliedIndex", info.getRaft().getAppliedIndex());
      ArrayNode shards = raft.putArray("logShards");
      for (LogShardInfo shard : info.getRaft().getLogShardsList()) {
        shards.addObject().put("shard", shard.getShard()).put("leaderId", shard.getLeaderId())
            .put("term", shard.getTerm()).put("commitIndex", shard.getCommitIndex())
            .put("appliedIndex", shard.getAppliedIndex());
      }
    }
    return out;
  }

  /** The topics the caller sees (any permission on them), as ListTopics gives them. */
  CompletableFuture<List<TopicSummary>> topics(Metadata md) {
    return admin.listTopics(ListTopicsRequest.getDefaultInstance(), md).toCompletableFuture()
        .thenApply(r -> r.getTopicsList());
  }

  ObjectNode topicsJson(List<TopicSummary> topics, Principal principal) {
    ObjectNode out = ConsoleReply.object();
    ArrayNode list = out.putArray("topics");
    for (TopicSummary t : topics) {
      ObjectNode j = list.addObject().put("name", t.getName()).put("pending", t.getPending())
          .put("admin", principal.may(Permission.ADMIN, t.getName()))
          .put("produce", principal.may(Permission.PRODUCE, t.getName()));
      t.getGroupsList().forEach(j.putArray("groups")::add);
    }
    return out;
  }

  CompletableFuture<ObjectNode> topic(String topic, Principal principal, Metadata md) {
    String deadLetters = topic.endsWith(BrokerStateMachine.DEAD_LETTER_SUFFIX) ? null
        : topic + BrokerStateMachine.DEAD_LETTER_SUFFIX;
    return admin.getTopicStats(GetTopicStatsRequest.newBuilder().setTopic(topic).build(), md).toCompletableFuture()
        .thenCompose(stats -> (deadLetters == null ? CompletableFuture.completedFuture(0L)
            : counts.pending(deadLetters)).thenApply(dead -> topicJson(stats, principal, deadLetters, dead)));
  }

  private static ObjectNode topicJson(TopicStats s, Principal principal, String deadLetters, long deadLetterCount) {
    ObjectNode out = ConsoleReply.object().put("topic", s.getTopic()).put("pending", s.getPending())
        .put("dueNow", s.getDueNow()).put("nextDueMs", s.getNextDueUnixMs() == 0 ? null : s.getNextDueUnixMs())
        .put("oldestDueAgeMs", s.getOldestDueAgeMs())
        .put("admin", principal.may(Permission.ADMIN, s.getTopic()))
        .put("produce", principal.may(Permission.PRODUCE, s.getTopic()))
        .put("deadLetterTopic", deadLetters)
        .put("deadLetters", deadLetterCount);
    ArrayNode groups = out.putArray("groups");
    for (GroupStats g : s.getGroupsList()) {
      groups.addObject().put("name", g.getName()).put("consumers", g.getConsumers()).put("inFlight", g.getInFlight())
          .put("ready", g.getReady()).put("delayed", g.getDelayed()).put("lag", g.getLag())
          .put("oldestUnackedDueAgeMs", g.getOldestUnackedDueAgeMs())
          .put("latenessP99Us", g.getLateness().getP99Us()).put("deliveries", g.getLateness().getDeliveries());
    }
    return out;
  }

  CompletableFuture<ObjectNode> messages(ListMessagesRequest request, Metadata md) {
    return admin.listMessages(request, md).toCompletableFuture().thenApply(r -> {
      ObjectNode out = ConsoleReply.object().put("nextPageToken", r.getNextPageToken());
      ArrayNode list = out.putArray("messages");
      r.getMessagesList().forEach(m -> list.add(messageJson(m, PREVIEW_BYTES)));
      return out;
    });
  }

  CompletableFuture<ObjectNode> message(GetMessageRequest request, Metadata md) {
    return admin.getMessage(request, md).toCompletableFuture().thenApply(m -> messageJson(m, Integer.MAX_VALUE));
  }

  /** A message; its payload (when read) as UTF-8 text if it is text, else base64, cut at {@code maxBytes}. */
  static ObjectNode messageJson(PendingMessage m, int maxBytes) {
    ObjectNode j = ConsoleReply.object().put("id", m.getMessageId()).put("key", m.getKey())
        .put("dueMs", m.getDueUnixMs()).put("enqueuedMs", m.getEnqueuedUnixMs())
        .put("expireMs", m.getExpireUnixMs() == 0 ? null : m.getExpireUnixMs()).put("size", m.getSize());
    ObjectNode headers = j.putObject("headers");
    m.getHeadersMap().forEach(headers::put);
    if (!m.getPayload().isEmpty()) {
      byte[] bytes = m.getPayload().toByteArray();
      byte[] shown = bytes.length <= maxBytes ? bytes : Arrays.copyOf(bytes, maxBytes);
      String text = utf8(shown);
      j.put("payloadTruncated", shown.length < bytes.length);
      if (text != null) {
        j.put("payloadText", text);
      } else {
        j.put("payloadBase64", Base64.getEncoder().encodeToString(shown));
      }
    }
    return j;
  }

  private static String utf8(byte[] bytes) {
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }
}
