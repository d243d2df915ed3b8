package io.futureq.topic;

import com.google.protobuf.ByteString;
import io.futureq.group.DueMessage;
import io.futureq.log.proto.ExpireMessages;
import io.futureq.log.proto.LogCommand;
import io.futureq.metrics.TopicMetrics;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * Removes one topic's expired messages, for its {@link TopicEntity}, without sweeping its messages: a timer goes
 * off at the earliest expiry known (from the TTL index when the topic starts, then from each message stored or
 * moved); the scan it starts ({@link ExpiryScanner}, on the storage executor) takes up to {@code expiry-chunk}
 * expired messages, removes them with one {@link ExpireMessages} write and sets the timer for the next expiry.
 * One scan runs at a time; a failed one is tried again after {@code retry-backoff}. Times are read from
 * {@code clock}. Runs on the entity's thread, as its handlers.
 */
final class TopicExpiry {
  private static final String EXPIRY_TIMER = "expiry";
  /** Capped like every long timer: Pekko refuses waits beyond about 24 days; an early tick re-arms. */
  private static final long MAX_TIMER_MS = Duration.ofHours(1).toMillis();

  private final ActorContext<TopicEntity.Command> ctx;
  private final TimerScheduler<TopicEntity.Command> timers;
  private final String topic;
  private final TopicContext tc;
  private final InstantSource clock;
  private boolean expiring;
  private boolean rescanExpiry;
  private long expiryTimerAt = Long.MAX_VALUE;

  TopicExpiry(ActorContext<TopicEntity.Command> ctx, TimerScheduler<TopicEntity.Command> timers, String topic,
      TopicContext tc, InstantSource clock) {
    this.ctx = ctx;
    this.timers = timers;
    this.topic = topic;
    this.tc = tc;
    this.clock = clock;
  }

  /** Scans at once, so that messages stored before the topic started expire on time too. */
  void start() {
    ctx.getSelf().tell(new TopicEntity.ExpiryDue());
  }

  /** Messages stored (or moved): the timer goes off by the earliest expiry among them, if any expires. */
  void stored(Collection<DueMessage> messages) {
    long earliest = Long.MAX_VALUE;
    for (DueMessage m : messages) {
      if (m.message().getExpireMs() > 0) {
        earliest = Math.min(earliest, m.message().getExpireMs());
      }
    }
    arm(earliest);
  }

  Behavior<TopicEntity.Command> onExpiryDue(TopicEntity.ExpiryDue due) {
    expiryTimerAt = Long.MAX_VALUE;
    if (expiring) {
      rescanExpiry = true;
      return Behaviors.same();
    }
    expiring = true;
    long now = clock.millis();
    CompletableFuture<ExpiryScanner.Expired> scan = CompletableFuture.supplyAsync(
        () -> ExpiryScanner.scan(tc.store(), topic, now, tc.settings().expiryChunk()), tc.storageExecutor());
    ctx.pipeToSelf(scan, TopicEntity.ExpiryScanned::new);
    return Behaviors.same();
  }

  Behavior<TopicEntity.Command> onExpiryScanned(TopicEntity.ExpiryScanned scanned) {
    if (scanned.failure() != null) {
      return onExpiryDone(new TopicEntity.ExpiryDone(0, false,
          clock.millis() + tc.settings().retryBackoff().toMillis(), scanned.failure()));
    }
    ExpiryScanner.Expired expired = scanned.expired();
    boolean more = expired.storageKeys().size() >= tc.settings().expiryChunk();
    if (expired.storageKeys().isEmpty()) {
      return onExpiryDone(new TopicEntity.ExpiryDone(0, false, expired.nextExpiryMs(), null));
    }
    ExpireMessages.Builder expire = ExpireMessages.newBuilder().setTopic(topic);
    expired.storageKeys().forEach(k -> expire.addStorageKeys(ByteString.copyFrom(k)));
    int count = expired.storageKeys().size();
    ctx.pipeToSelf(tc.eventLog().append(LogCommand.newBuilder().setExpire(expire).build()),
        (ok, failure) -> new TopicEntity.ExpiryDone(count, more, expired.nextExpiryMs(), failure));
    return Behaviors.same();
  }

  Behavior<TopicEntity.Command> onExpiryDone(TopicEntity.ExpiryDone done) {
    expiring = false;
    long next = done.nextExpiryMs();
    if (done.failure() != null) {
      ctx.getLog().warn("removing expired messages of topic {} failed; retrying", topic, done.failure());
      next = clock.millis() + tc.settings().retryBackoff().toMillis();
    } else {
      TopicMetrics.of(topic).expired.increment(done.count());
    }
    boolean again = done.more() || rescanExpiry;
    rescanExpiry = false;
    arm(again ? clock.millis() : next);
    return Behaviors.same();
  }

  private void arm(long atMs) {
    if (atMs == Long.MAX_VALUE || atMs >= expiryTimerAt) {
      return;
    }
    expiryTimerAt = atMs;
    timers.startSingleTimer(EXPIRY_TIMER, new TopicEntity.ExpiryDue(),
        Duration.ofMillis(Math.min(MAX_TIMER_MS, Math.max(0, atMs - clock.millis()))));
  }
}
