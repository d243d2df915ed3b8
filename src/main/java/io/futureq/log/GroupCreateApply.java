package io.futureq.log;

import io.futureq.log.proto.CreateGroup;
import io.futureq.storage.OrderedStore.Space;
import io.futureq.storage.StorageKeys;

/**
 * How {@link BrokerStateMachine} applies a CreateGroup: the group is registered under its topic once; creating it
 * again writes nothing and answers that it existed. From then on a message of the topic is removed only once this
 * group, too, acked it ({@link AckApply}).
 */
final class GroupCreateApply {
  private GroupCreateApply() {}

  /** @param index the log index of the entry, which the result carries */
  static CommandResult apply(StoredMessages messages, CreateGroup create, long index) {
    TopicBook book = messages.book();
    boolean existed = book.groups(create.getTopic()).contains(create.getGroup());
    if (!existed) {
      messages.ctx().put(Space.INDEX, StorageKeys.group(create.getTopic(), create.getGroup()), new byte[0]);
      book.addGroup(create.getTopic(), create.getGroup());
    }
    return new CommandResult.GroupCreated(create.getTopic(), create.getGroup(), existed, index);
  }
}
