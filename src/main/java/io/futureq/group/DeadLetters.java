package io.futureq.group;

import com.google.protobuf.ByteString;
import io.futureq.log.proto.DeadLetter;
import io.futureq.log.proto.LogCommand;

/** Builds the log command that moves a message out of its group into the dead-letter topic. */
final class DeadLetters {
  private DeadLetters() {}

  static LogCommand of(GroupContext gc, Pending p, long nowMs) {
    String reason = "delivered " + p.deliveries() + " times without an ack (max-deliveries "
        + gc.settings().maxDeliveries() + ") in group '" + gc.group() + "'";
    return LogCommand.newBuilder().setDeadLetter(DeadLetter.newBuilder().setTopic(gc.topic()).setGroup(gc.group())
        .setStorageKey(ByteString.copyFrom(p.message().storageKey())).setReason(reason).setNowMs(nowMs)).build();
  }
}
