package io.futureq.group;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * Brings a group's nacked messages back to its buffer: at once, or after the nack's requeue delay, which is
 * also written to the log so that it holds after a restart or a topic move ({@link DurableNacks}). A
 * dead-letter move that failed waits here too, for the retry backoff. Arms the group's requeue timer. (A
 * delivery that timed out comes back through {@link InFlightDeliveries}.) Owned by one {@link ConsumerGroup},
 * not thread-safe.
 */
final class Redelivery {
  private final RequeueQueue requeue = new RequeueQueue();
  private final TimerScheduler<ConsumerGroup.Command> timers;
  private final ConsumerGroup.Command requeueDue;
  private final GroupContext gc;
  private final DueBuffer feed;
  private long requeueTimerAt = Long.MAX_VALUE;

  /** @param requeueDue what the requeue timer tells the group, which then calls {@link #requeueDue()} */
  Redelivery(TimerScheduler<ConsumerGroup.Command> timers, ConsumerGroup.Command requeueDue, GroupContext gc,
      DueBuffer feed) {
    this.timers = timers;
    this.requeueDue = requeueDue;
    this.gc = gc;
    this.feed = feed;
  }

  /** Consumers nacked these deliveries: they go to the front of the buffer, or wait for {@code requeueDelay}. */
  void nacked(List<InFlightTable.Entry<LiveConsumer>> entries, Duration requeueDelay) {
    long at = gc.wakeTimer().clock().millis() + requeueDelay.toMillis();
    List<Pending> delayed = new ArrayList<>();
    for (int i = entries.size() - 1; i >= 0; i--) {
      Pending again = new Pending(entries.get(i).message, entries.get(i).attempt);
      if (requeueDelay.isZero()) {
        feed.ready.addFirst(again);
      } else {
        requeue.add(again, at);
        delayed.add(again);
      }
    }
    if (!delayed.isEmpty()) {
      DurableNacks.write(gc, delayed, at);
    }
    armRequeueTimer();
  }

  /** Nacked with a delay before this group started (a restart, a topic move): the delay holds. */
  void holdNackDelayed(List<ConsumerGroup.NackDelayed> delayed) {
    for (ConsumerGroup.NackDelayed d : delayed) {
      requeue.add(new Pending(d.message(), d.mark().deliveries()), d.mark().notBeforeMs());
    }
    armRequeueTimer();
  }

  /** Moving the message to the dead-letter topic failed: it is tried again after the retry backoff. */
  void retryDeadLetter(Pending pending) {
    requeue.add(pending, gc.wakeTimer().clock().millis() + gc.topicSettings().retryBackoff().toMillis());
    armRequeueTimer();
  }

  /** The requeue timer fired: the messages whose wait is over go to the front of the buffer, earliest first. */
  void requeueDue() {
    requeueTimerAt = Long.MAX_VALUE;
    List<Pending> back = requeue.takeReady(gc.wakeTimer().clock().millis());
    for (int i = back.size() - 1; i >= 0; i--) {
      feed.ready.addFirst(back.get(i));
    }
    armRequeueTimer();
  }

  /** Cancelled or expired messages do not come back. */
  void removed(Set<ByteBuffer> storageKeys) {
    requeue.removeIf(p -> storageKeys.contains(ByteBuffer.wrap(p.message().storageKey())));
  }

  /** Messages waiting out a delay. */
  int waiting() {
    return requeue.size();
  }

  private void armRequeueTimer() {
    long at = requeue.earliest();
    if (at != Long.MAX_VALUE && at < requeueTimerAt) {
      requeueTimerAt = at;
      timers.startSingleTimer("requeue", requeueDue, ConsumerGroup.timerDelay(at, gc.wakeTimer().clock().millis()));
    }
  }
}
