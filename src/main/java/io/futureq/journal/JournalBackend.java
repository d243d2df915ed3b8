package io.futureq.journal;

import io.futureq.log.EventLog;
import io.futureq.storage.OrderedStore;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;

/**
 * Hands the node's {@link EventLog} and {@link OrderedStore} to {@link EventLogJournal}, which Pekko creates by
 * reflection and so cannot receive them as constructor arguments.
 *
 * <p>Contract: the composition root calls {@link #bind} once, right after it created the event log and before any
 * persistent actor starts; a journal used before that fails its requests with {@link IllegalStateException}.
 * Safe from any thread.
 */
public final class JournalBackend implements Extension {
  private volatile Bound bound;

  record Bound(EventLog eventLog, OrderedStore store) {}

  private JournalBackend() {}

  public static JournalBackend get(ActorSystem<?> system) {
    return Id.INSTANCE.apply(system);
  }

  /** Makes the journal write through {@code eventLog} and read from {@code store}, the store that log applies to. */
  public void bind(EventLog eventLog, OrderedStore store) {
    if (eventLog == null || store == null) {
      throw new IllegalArgumentException("the journal needs an event log and a store");
    }
    this.bound = new Bound(eventLog, store);
  }

  Bound bound() {
    Bound b = bound;
    if (b == null) {
      throw new IllegalStateException("the journal backend is not bound: Node binds it after creating the event log");
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
