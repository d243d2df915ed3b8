package io.futureq.group;

import com.google.protobuf.ByteString;
import io.futureq.log.proto.DelayedDelivery;
import io.futureq.log.proto.LogCommand;
import io.futureq.log.proto.NackDelay;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a group's delayed nacks to the log, so that the delay holds after a restart or a topic
 * move (the group's own {@link RequeueQueue} keeps time while it runs). Best effort: if the write
 * fails, the message is still held for its delay here, but a restart before it is delivered again
 * makes it due at once, as before.
 */
final class DurableNacks {
  private static final Logger LOG = LoggerFactory.getLogger(DurableNacks.class);

  private DurableNacks() {}

  static void write(GroupContext gc, List<Pending> nacked, long notBeforeMs) {
    NackDelay.Builder delay = NackDelay.newBuilder().setTopic(gc.topic()).setGroup(gc.group());
    for (Pending p : nacked) {
      delay.addDeliveries(DelayedDelivery.newBuilder().setStorageKey(ByteString.copyFrom(p.message().storageKey()))
          .setNotBeforeMs(notBeforeMs).setDeliveries(p.deliveries()));
    }
    gc.eventLog().append(LogCommand.newBuilder().setNackDelay(delay).build()).whenComplete((ok, failure) -> {
      if (failure != null) {
        LOG.warn("writing the nack delay of {} messages of topic {} group '{}' failed; it holds until a restart",
            nacked.size(), gc.topic(), gc.group(), failure);
      }
    });
  }
}
