package io.futureq.app;

import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.pekko.actor.AbstractExtensionId;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.Extension;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;

/** Whether this node serves: storage open and gRPC bound, and not yet shutting down. */
public final class Readiness implements Extension {
  private static final Id ID = new Id();
  private final AtomicBoolean ready = new AtomicBoolean();

  public static Readiness get(ActorSystem<?> system) {
    return ID.get(Adapter.toClassic(system));
  }

  static Readiness get(org.apache.pekko.actor.ActorSystem system) {
    return ID.get(system);
  }

  public boolean isReady() {
    return ready.get();
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
