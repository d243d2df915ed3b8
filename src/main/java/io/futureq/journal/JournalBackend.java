package io.futureq.journal;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.futureq.log.EventLog;
import io.futureq.storage.OrderedStore;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;

/**
 * Hands the node's {@link EventLog}s and {@link OrderedStore}s, one of each per log shard, to {@link EventLogJournal},
 * which Pekko creates by reflection and so cannot receive them as constructor arguments. Each shard's write leaders
 * persist to their shard's log; every other persistent actor journals in shard 0.
 *
 * <p>Contract: the composition root calls {@link #bind} once, right after it created the event log and before any
 * persistent actor starts; a journal used before that fails its requests with {@link IllegalStateException}.
 * Safe from any thread.
 */
public final class JournalBackend implements Extension {
  private final Map<Integer, Bound> bound = new ConcurrentHashMap<>();

  /**
   * @param log the log itself: the write leader's entries and its recovery barrier go there
   * @param writer what every other persistent actor writes through (the proxy to the write leader)
   */
  record Bound(EventLog log, EventLog writer, OrderedStore store) {}

  private JournalBackend() {}

  /**
   * What an actor system needs, besides a {@link #bind}, for persistent actors to journal through FutureQ: the
   * {@code futureq.journal} plugin, the dispatcher its reads run on ({@code futureq-blocking-dispatcher}) and FutureQ's
   * {@code pekko.persistence} section (the default journal plugin, no snapshot store), as shipped in
   * {@code futureq.conf}. A FutureQ node's own system has them already; use it as a fallback for another system's
   * configuration (README, "Pekko Persistence").
   */
  public static Config pluginConfig() {
    Config shipped = ConfigFactory.parseResources("futureq.conf").resolve();
    return shipped.withOnlyPath("futureq.journal")
        .withFallback(shipped.withOnlyPath("futureq-blocking-dispatcher"))
        .withFallback(shipped.withOnlyPath("pekko.persistence"));
  }

  public static JournalBackend get(ActorSystem<?> system) {
    return Id.INSTANCE.apply(system);
  }

  /** Without a write leader: every persistent actor writes through {@code eventLog}. */
  public void bind(EventLog eventLog, OrderedStore store) {
    bind(eventLog, eventLog, store);
  }

  /** As {@link #bind(int, EventLog, EventLog, OrderedStore)} for log shard 0. */
  public void bind(EventLog log, EventLog writer, OrderedStore store) {
    bind(0, log, writer, store);
  }

  /**
   * Makes the journal write the entries of log shard {@code shard}'s write leaders to {@code log} and read from
   * {@code store}, the store that log applies to; for shard 0, besides, other actors' events go through
   * {@code writer}.
   */
  public void bind(int shard, EventLog log, EventLog writer, OrderedStore store) {
    if (log == null || writer == null || store == null) {
      throw new IllegalArgumentException("the journal needs an event log, a writer and a store");
    }
    bound.put(shard, new Bound(log, writer, store));
  }

  /** Shard 0's binding: where every persistent actor but the write leaders journals. */
  Bound bound() {
    return bound(0);
  }

  Bound bound(int shard) {
    Bound b = bound.get(shard);
    if (b == null) {
      throw new IllegalStateException("the journal backend is not bound for log shard " + shard + ": Node binds it "
          + "after creating the event log");
    }
    return b;
  }

  private static final class Id extends ExtensionId<JournalBackend> {
    private static final Id INSTANCE = new Id();

    @Override
    public JournalBackend createExtension(ActorSystem<?> system) {
      return new JournalBackend();
    }
  }
}
