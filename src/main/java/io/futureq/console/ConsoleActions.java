package io.futureq.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.futureq.api.grpc.AdminPowerApi;
import io.futureq.api.grpc.CancelRequest;
import io.futureq.api.grpc.DeleteGroupRequest;
import io.futureq.api.grpc.DeleteTopicRequest;
import io.futureq.api.grpc.ProducerPowerApi;
import io.futureq.api.grpc.PurgeTopicRequest;
import io.futureq.api.grpc.RescheduleMessageRequest;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.pekko.grpc.javadsl.Metadata;

/**
 * The console's actions, each the API's call of the same name with the caller's token, so they are allowed and
 * refused exactly as there: reschedule, purge, delete group or topic (Admin, the admin permission) and cancel by key
 * (Producer, the produce permission).
 */
final class ConsoleActions {
  private final AdminPowerApi admin;
  private final ProducerPowerApi producer;

  ConsoleActions(AdminPowerApi admin, ProducerPowerApi producer) {
    this.admin = admin;
    this.producer = producer;
  }

  /**
   * Body: {@code id} or {@code key}; then {@code atMs} (epoch ms), {@code delayMs}, or neither for now.
   *
   * @throws ConsoleReply.BadRequest naming the field
   */
  CompletableFuture<ObjectNode> reschedule(String topic, JsonNode body, Metadata md) {
    RescheduleMessageRequest.Builder r = RescheduleMessageRequest.newBuilder().setTopic(topic);
    target(body, r::setMessageId, r::setKey);
    if (body.hasNonNull("atMs")) {
      r.setDeliverAtUnixMs(number(body, "atMs"));
    } else if (body.hasNonNull("delayMs")) {
      r.setDelayMs(number(body, "delayMs"));
    }
    return admin.rescheduleMessage(r.build(), md).toCompletableFuture().thenApply(done -> ConsoleReply.object()
        .put("id", done.getMessageId()).put("previousId", done.getPreviousMessageId())
        .put("dueMs", done.getDueUnixMs()));
  }

  CompletableFuture<ObjectNode> cancel(String topic, JsonNode body, Metadata md) {
    CancelRequest.Builder r = CancelRequest.newBuilder().setTopic(topic);
    target(body, r::setMessageId, r::setKey);
    return producer.cancel(r.build(), md).toCompletableFuture().thenApply(done -> ConsoleReply.object()
        .put("existed", done.getExisted()).put("id", done.getMessageId()));
  }

  CompletableFuture<ObjectNode> purge(String topic, Metadata md) {
    return admin.purgeTopic(PurgeTopicRequest.newBuilder().setTopic(topic).build(), md).toCompletableFuture()
        .thenApply(done -> ConsoleReply.object().put("removed", done.getRemoved()));
  }

  CompletableFuture<ObjectNode> deleteTopic(String topic, Metadata md) {
    return admin.deleteTopic(DeleteTopicRequest.newBuilder().setTopic(topic).build(), md).toCompletableFuture()
        .thenApply(done -> {
          ObjectNode out = ConsoleReply.object().put("removed", done.getRemoved());
          done.getGroupsList().forEach(out.putArray("groups")::add);
          return out;
        });
  }

  CompletableFuture<ObjectNode> deleteGroup(String topic, String group, Metadata md) {
    return admin.deleteGroup(DeleteGroupRequest.newBuilder().setTopic(topic).setGroup(group).build(), md)
        .toCompletableFuture().thenApply(done -> ConsoleReply.object().put("removed", done.getRemoved()));
  }

  private static void target(JsonNode body, Consumer<String> id,
      Consumer<String> key) {
    if (body.hasNonNull("id")) {
      id.accept(body.get("id").asText());
    } else if (body.hasNonNull("key")) {
      key.accept(body.get("key").asText());
    } else {
      throw new ConsoleReply.BadRequest("id or key: one must be given");
    }
  }

  private static long number(JsonNode body, String field) {
    JsonNode n = body.get(field);
    if (!n.canConvertToLong()) {
      throw new ConsoleReply.BadRequest(field + ": must be a whole number of milliseconds; got " + n);
    }
    return n.asLong();
  }
}
