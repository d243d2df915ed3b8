package io.futureq.app;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.apache.pekko.actor.AbstractExtensionId;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.Extension;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;

/**
 * Whether this node serves: storage open, gRPC bound, not shutting down and, in a cluster, a member
 * that is Up with a Raft replica that has caught up; and how it keeps its data, which /ready shows.
 */
public final class Readiness implements Extension {
  private static final Id ID = new Id();
  private final AtomicBoolean ready = new AtomicBoolean();
  /** Why this node does not serve yet beyond start-up and shutdown; null when nothing holds it back. */
  private volatile Supplier<String> holdsBack = () -> null;
  private volatile String storage = "not open";

  public static Readiness get(ActorSystem<?> system) {
    return ID.get(Adapter.toClassic(system));
  }

  // fqn: the classic ActorSystem, beside the typed one (imported)
  static Readiness get(org.apache.pekko.actor.ActorSystem system) {
    return ID.get(system);
  }

  public boolean isReady() {
    return whyNotReady() == null;
  }

  /** Why this node is not ready (what /ready answers), or null when it is. */
  public String whyNotReady() {
    return ready.get() ? holdsBack.get() : "starting or shutting down";
  }

  /**
   * A further condition for readiness, such as cluster membership and a caught-up replica: says why
   * the node is not ready yet, null once it is.
   */
  void require(Supplier<String> holdsBack) {
    this.holdsBack = holdsBack;
  }

  /** How this node keeps its data, as /ready shows it: "rocksdb" or "memory (...)". */
  public String storage() {
    return storage;
  }

  void describeStorage(String storage) {
    this.storage = storage;
  }

  void set(boolean value) {
    ready.set(value);
  }

  private static final class Id extends AbstractExtensionId<Readiness> {
    @Override
    public Readiness createExtension(ExtendedActorSystem system) {
      return new Readiness();
    }
  }
}
