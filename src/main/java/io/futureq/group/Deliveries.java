package io.futureq.group;

import com.google.protobuf.ByteString;
import io.futureq.api.grpc.Delivery;
import io.futureq.log.proto.DeadLetter;
import io.futureq.log.proto.LogCommand;
import io.futureq.log.proto.StoredMessage;

/** Builds what a group sends out: deliveries to consumers and dead-letter commands to the log. */
final class Deliveries {
  private Deliveries() {}

  static Delivery of(GroupContext gc, DueMessage message, DeliveryTag tag, int attempt) {
    StoredMessage m = message.message();
    return Delivery.newBuilder().setTopic(gc.topic()).setMessageId(message.id()).setKey(m.getKey())
        .putAllHeaders(m.getHeadersMap()).setPayload(m.getPayload()).setDeliveryTag(tag.toString())
        .setDueAtUnixMs(m.getDueMs()).setEnqueuedAtUnixMs(m.getEnqueuedMs()).setAttempt(attempt)
        .setGroup(gc.group()).build();
  }

  static LogCommand deadLetter(GroupContext gc, Pending p, long nowMs) {
    String reason = "delivered " + p.deliveries() + " times without an ack (max-deliveries "
        + gc.settings().maxDeliveries() + ") in group '" + gc.group() + "'";
    return LogCommand.newBuilder().setDeadLetter(DeadLetter.newBuilder().setTopic(gc.topic()).setGroup(gc.group())
        .setStorageKey(ByteString.copyFrom(p.message().storageKey())).setReason(reason).setNowMs(nowMs)).build();
  }
}
