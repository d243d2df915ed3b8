package io.futureq.app;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.ChildFailed;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The root of a node's actors: the composition root ({@link Node}) asks it to start each long-lived actor, and it
 * chooses the supervision at that spawn.
 *
 * <p>{@link OnFailure#RESTART}: an actor that throws is restarted after a back-off (its ref stays the same, so whoever
 * holds it goes on); one that keeps failing, {@value #MAX_RESTARTS_IN_A_ROW} restarts in a row, or that dies outside
 * its behaviour, stops the node through its coordinated shutdown with {@link ActorFailed} as the reason. A node whose
 * write path or directory is gone cannot serve; stopping it moves its Raft leadership and its topics to nodes that
 * can, and what its writers were waiting for fails (an unknown outcome), never reported as done.
 *
 * <p>{@link OnFailure#LET_STOP}: best-effort work (a warm-up) just stops on a failure; the node goes on without it.
 */
public final class Guardian {
  static final int MAX_RESTARTS_IN_A_ROW = 10;
  static final Duration MIN_BACKOFF = Duration.ofMillis(100);
  static final Duration MAX_BACKOFF = Duration.ofSeconds(5);

  /** What the guardian accepts: local only. */
  public sealed interface Command {}

  /** Starts {@code behavior} as the child {@code name}, supervised as {@code onFailure} says; replies its ref. */
  public record Start<T>(Behavior<T> behavior, String name, OnFailure onFailure, ActorRef<ActorRef<T>> replyTo)
      implements Command {}

  /** What becomes of a child that fails. */
  public enum OnFailure {
    /** Restarted with back-off; the node stops once the child keeps failing. */
    RESTART,
    /** Stopped; the node goes on without it. */
    LET_STOP
  }

  /** Why the node shut down on its own: an actor it cannot serve without failed for good. */
  public record ActorFailed(String actor, String cause) implements CoordinatedShutdown.Reason {}

  private Guardian() {}

  public static Behavior<Command> create() {
    return Behaviors.setup(ctx -> {
      Map<ActorRef<?>, Start<?>> children = new HashMap<>();
      return Behaviors.receive(Command.class)
          .onMessage(Start.class, start -> {
            children.put(spawn(ctx, start), start);
            return Behaviors.same();
          })
          .onSignal(ChildFailed.class, failed -> {
            Start<?> child = children.remove(failed.getRef());
            if (child != null && child.onFailure() == OnFailure.RESTART) {
              String cause = String.valueOf(failed.getCause());
              ctx.getLog().error("{} failed for good ({}): this node stops, its leadership and topics move to the "
                  + "other nodes", child.name(), cause, failed.getCause());
              CoordinatedShutdown.get(ctx.getSystem()).run(new ActorFailed(child.name(), cause));
            }
            return Behaviors.same();
          })
          .onSignal(Terminated.class, stopped -> {
            children.remove(stopped.getRef());
            return Behaviors.same();
          })
          .build();
    });
  }

  private static <T> ActorRef<T> spawn(ActorContext<Command> ctx, Start<T> start) {
    Behavior<T> supervised = start.onFailure() == OnFailure.RESTART
        ? Behaviors.supervise(start.behavior()).onFailure(SupervisorStrategy
            .restartWithBackoff(MIN_BACKOFF, MAX_BACKOFF, 0.2).withMaxRestarts(MAX_RESTARTS_IN_A_ROW))
        : Behaviors.supervise(start.behavior()).onFailure(SupervisorStrategy.stop());
    ActorRef<T> child = ctx.spawn(supervised, start.name());
    ctx.watch(child);
    start.replyTo().tell(child);
    return child;
  }

  /** Starts a child of the system's guardian and waits for its ref (start-up runs on the caller's thread). */
  static <T> ActorRef<T> start(ActorSystem<Command> system, String name, Behavior<T> behavior,
      OnFailure onFailure) {
    CompletableFuture<ActorRef<T>> started = AskPattern.<Command, ActorRef<T>>ask(system,
        replyTo -> new Start<>(behavior, name, onFailure, replyTo), Duration.ofSeconds(10), system.scheduler())
        .toCompletableFuture();
    try {
      return started.get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("could not start " + name + ": " + e.getMessage(), e);
    }
  }
}
