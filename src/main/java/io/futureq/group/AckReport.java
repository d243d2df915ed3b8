package io.futureq.group;

import java.util.ArrayList;
import java.util.List;

/**
 * The messages a group's consumers acked since it last told its topic: reported as one {@link ConsumerGroup.Acked}
 * per batch of ack messages rather than one per ack frame, since the topic's delete path costs per message it
 * gets. Owned by one actor, not thread-safe.
 */
final class AckReport {
  private final GroupContext gc;
  private List<byte[]> keys = new ArrayList<>();
  private boolean keyed;

  AckReport(GroupContext gc) {
    this.gc = gc;
  }

  void add(DueMessage message) {
    keys.add(message.storageKey());
    keyed |= !message.message().getKey().isEmpty();
  }

  /** Tells the topic what was gathered, if anything. */
  void send() {
    if (!keys.isEmpty()) {
      gc.ackSink().tell(new ConsumerGroup.Acked(gc.group(), keys, keyed));
      keys = new ArrayList<>();
      keyed = false;
    }
  }
}
