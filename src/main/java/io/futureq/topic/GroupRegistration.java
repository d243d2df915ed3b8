package io.futureq.topic;

import io.futureq.log.CommandResult;
import io.futureq.log.proto.CreateGroup;
import io.futureq.log.proto.LogCommand;
import java.util.concurrent.CompletableFuture;

/** Registers a durable group and waits until this node's replica has applied the registration. */
final class GroupRegistration {
  private GroupRegistration() {}

  /**
   * Completes once this node's replica has applied the group's registration, and so every entry committed before
   * it: a group that read a lagging replica would deliver again messages whose delete is committed but not applied
   * here yet.
   */
  static CompletableFuture<Long> register(TopicContext tc, String topic, String group) {
    LogCommand create = LogCommand.newBuilder()
        .setCreateGroup(CreateGroup.newBuilder().setTopic(topic).setGroup(group)).build();
    return tc.eventLog().append(create).toCompletableFuture().thenCompose(result ->
        tc.eventLog().whenApplied(((CommandResult.GroupCreated) result).logIndex(), tc.askTimeout()));
  }
}
