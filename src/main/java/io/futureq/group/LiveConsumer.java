package io.futureq.group;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * One consumer attached to a group, as the group keeps it: the round-robin hands this object out, so a
 * delivery finds the consumer's tag counter and outbox without a look-up. Owned by one actor.
 */
final class LiveConsumer {
  final ActorRef<SubscriberSession.Command> ref;
  /** The next delivery tag: tags count up per consumer, so acks pack into ranges. */
  long nextTag;
  /** Deliveries of the current pump, sent as one message at its end. */
  List<GroupDelivery> outbox = new ArrayList<>();
  /** Tags of deliveries that timed out, with their payload bytes: their credit returns when the consumer answers. */
  final TreeMap<Long, Integer> timedOut = new TreeMap<>();

  LiveConsumer(ActorRef<SubscriberSession.Command> ref, long firstTag) {
    this.ref = ref;
    this.nextTag = firstTag;
  }

  /** Queues a delivery under the next tag, which it returns. */
  long queue(int attempt, DueMessage message) {
    long tag = nextTag++;
    outbox.add(new GroupDelivery(tag, attempt, message));
    return tag;
  }

  /** Sends what the pump queued, if anything, as one message. */
  void flush() {
    if (!outbox.isEmpty()) {
      ref.tell(new SubscriberSession.Deliver(outbox));
      outbox = new ArrayList<>();
    }
  }
}
