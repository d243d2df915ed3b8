package io.futureq.topic;

import com.google.protobuf.ByteString;
import io.futureq.log.Failures;
import io.futureq.log.LogUnavailableException;
import io.futureq.log.proto.DeleteBatch;
import io.futureq.log.proto.GroupAck;
import io.futureq.log.proto.LogCommand;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * Turns the acks of one topic's groups into {@link DeleteBatch} writes, for its {@link TopicEntity}: acks gather
 * for {@code delete-batch-interval} and go as one write, one write at a time; an ack of a keyed message goes at
 * once. A failed write is tried again after {@code retry-backoff}, with what gathered meanwhile. Runs on the
 * entity's thread, as its handlers.
 */
final class DeleteBatcher {
  private static final String FLUSH_TIMER = "flush";

  private final ActorContext<TopicEntity.Command> ctx;
  private final TimerScheduler<TopicEntity.Command> timers;
  private final String topic;
  private final TopicContext tc;
  private List<GroupAck> pendingAcks = new ArrayList<>();
  private boolean flushing;
  /** Acks of keyed messages are waiting: the next flush goes at once. */
  private boolean keyedPending;

  DeleteBatcher(ActorContext<TopicEntity.Command> ctx, TimerScheduler<TopicEntity.Command> timers, String topic,
      TopicContext tc) {
    this.ctx = ctx;
    this.timers = timers;
    this.topic = topic;
    this.tc = tc;
  }

  Behavior<TopicEntity.Command> onGroupAcked(TopicEntity.GroupAcked acked) {
    for (byte[] key : acked.acked().storageKeys()) {
      pendingAcks.add(GroupAck.newBuilder().setTopic(topic).setGroup(acked.acked().group())
          .setStorageKey(ByteString.copyFrom(key)).build());
    }
    if (acked.acked().keyed()) {
      // A key is free again only once its message's delete is written: no batching delay for those.
      keyedPending = true;
      flush();
    } else if (!timers.isTimerActive(FLUSH_TIMER)) {
      timers.startSingleTimer(FLUSH_TIMER, new TopicEntity.Flush(), tc.settings().deleteBatchInterval());
    }
    return Behaviors.same();
  }

  Behavior<TopicEntity.Command> onFlush(TopicEntity.Flush flush) {
    flush();
    return Behaviors.same();
  }

  Behavior<TopicEntity.Command> onFlushDone(TopicEntity.FlushDone done) {
    flushing = false;
    Duration next = keyedPending ? Duration.ZERO : tc.settings().deleteBatchInterval();
    if (done.failure() != null) {
      Throwable cause = Failures.cause(done.failure());
      if (cause instanceof LogUnavailableException) {
        // What every write leader change does to a batch in flight: a line, not a stack trace.
        ctx.getLog().warn("deleting {} acked messages of topic {} failed ({}); retrying",
            done.batch().size(), topic, cause.getMessage());
      } else {
        ctx.getLog().warn("deleting {} acked messages of topic {} failed; retrying", done.batch().size(),
            topic, cause);
      }
      done.batch().addAll(pendingAcks);
      pendingAcks = new ArrayList<>(done.batch());
      next = tc.settings().retryBackoff();
    }
    if (!pendingAcks.isEmpty()) {
      timers.startSingleTimer(FLUSH_TIMER, new TopicEntity.Flush(), next);
    }
    return Behaviors.same();
  }

  /** Drops the acks of deleted groups not written yet: a new group of the same name must not inherit them. */
  void dropGroups(List<String> groups) {
    pendingAcks.removeIf(ack -> groups.contains(ack.getGroup()));
  }

  /** Acks gathered but not written are written on the way out; the log drains before it closes. */
  void flushOnStop() {
    if (!pendingAcks.isEmpty()) {
      tc.eventLog().append(delete(pendingAcks));
      pendingAcks = new ArrayList<>();
    }
  }

  private void flush() {
    if (flushing || pendingAcks.isEmpty()) {
      return;
    }
    flushing = true;
    keyedPending = false;
    timers.cancel(FLUSH_TIMER);
    List<GroupAck> batch = pendingAcks;
    pendingAcks = new ArrayList<>();
    ctx.pipeToSelf(tc.eventLog().append(delete(batch)), (ok, failure) -> new TopicEntity.FlushDone(batch, failure));
  }

  private static LogCommand delete(List<GroupAck> acks) {
    return LogCommand.newBuilder().setDelete(DeleteBatch.newBuilder().addAllAcks(acks)).build();
  }
}
