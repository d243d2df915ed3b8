package io.futureq.log.leader;

import io.futureq.log.CommandResult;
import io.futureq.log.CommandResultCodec;
import io.futureq.log.EventLog.LeaderAck;
import io.futureq.log.LogUnavailableException;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;

/**
 * Every node's way to the write leader, one per node: each command goes to the {@link LogLeader} the receptionist
 * lists, of those listed the one with the greatest name (the latest Raft term: the receptionist still lists a
 * crashed node's leader for a while). A leader on this node gets the command as it is, with its caller's futures; a
 * leader on another node gets it once over remoting and answers with the encoded result. While no leader is listed
 * (an election), commands wait here, within their callers' timeout.
 *
 * <p>Nothing is sent twice. When another leader is listed, the commands the previous one (on another node) has not
 * answered fail as of unknown outcome: it may have written them before it lost its term. When a leader stops, the
 * commands it has not answered fail: those of this node were not applied (its stop answered those it wrote), those
 * forwarded from here may have been. Producers send again; a keyed message is stored once.
 */
public final class WriteRouter extends AbstractBehavior<WriteRouter.Command> {
  /**
   * What the router accepts: a writer's {@link LogLeader.Append}, which it hands on as it is to a leader of this
   * node. Local only: appends carry the caller's futures.
   */
  public sealed interface Command permits LogLeader.Append, LeadersListed, Answered, LeaderStopped {}

  private record LeadersListed(Receptionist.Listing listing) implements Command {}

  private record Answered(LogLeader.Forwarded answer) implements Command {}

  private record LeaderStopped(ActorRef<LogLeader.Command> leader) implements Command {}

  /** A command forwarded to a leader on another node, not answered yet. */
  private record Forwarded(LogLeader.Append append, ActorRef<LogLeader.Command> leader) {}

  /** The router to log shard 0's leaders, with a lane of its own. */
  public static Behavior<Command> create() {
    return create(0, new LeaderLane());
  }

  /**
   * The router to the leaders of log shard {@code shard}; while one of them runs on this node, {@code lane} leads
   * writers to it directly.
   */
  public static Behavior<Command> create(int shard, LeaderLane lane) {
    return Behaviors.setup(ctx -> new WriteRouter(ctx, LogLeader.serviceKey(shard), lane));
  }

  private final ServiceKey<LogLeader.Command> serviceKey;
  private final ActorRef<LogLeader.Forwarded> answers;
  private final Deque<LogLeader.Append> waitingForLeader = new ArrayDeque<>();
  /** By id; an entry leaves when answered, or when its caller stopped waiting (on the caller's thread). */
  private final Map<Long, Forwarded> forwarded = new ConcurrentHashMap<>();
  /** Commands handed to leaders of this node (by this router, or by writers through the lane), until answered. */
  private final Map<ActorRef<LogLeader.Command>, LeaderLane.Route> handedOver = new HashMap<>();
  private final LeaderLane lane;
  private final Set<ActorRef<LogLeader.Command>> watched = new HashSet<>();
  private ActorRef<LogLeader.Command> leader;
  private long nextId;

  private WriteRouter(ActorContext<Command> ctx, ServiceKey<LogLeader.Command> serviceKey, LeaderLane lane) {
    super(ctx);
    this.serviceKey = serviceKey;
    this.lane = lane;
    lane.open(null); // a restarted router knows no leader yet
    this.answers = ctx.messageAdapter(LogLeader.Forwarded.class, Answered::new);
    ActorRef<Receptionist.Listing> listings = ctx.messageAdapter(Receptionist.Listing.class, LeadersListed::new);
    ctx.getSystem().receptionist().tell(Receptionist.subscribe(serviceKey, listings));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(LogLeader.Append.class, this::onAppend)
        .onMessage(LeadersListed.class, this::onLeadersListed)
        .onMessage(Answered.class, this::onAnswered)
        .onMessage(LeaderStopped.class, this::onLeaderStopped)
        .build();
  }

  private Behavior<Command> onAppend(LogLeader.Append append) {
    if (leader == null) {
      waitingForLeader.add(append);
    } else {
      send(append);
    }
    return this;
  }

  private Behavior<Command> onLeadersListed(LeadersListed listed) {
    ActorRef<LogLeader.Command> latest = listed.listing().getServiceInstances(serviceKey).stream()
        .max(Comparator.comparing(ref -> ref.path().name())).orElse(null);
    if (Objects.equals(latest, leader)) {
      return this;
    }
    getContext().getLog().debug("Writes go to the write leader {} now", latest);
    leader = latest;
    lane.open(null);
    if (latest == null) {
      return this; // a leader that resigned still answers what it wrote; a crashed one is seen stopped, or replaced
    }
    if (watched.add(latest)) {
      getContext().watchWith(latest, new LeaderStopped(latest));
    }
    if (isLocal(latest)) {
      handedOver.computeIfAbsent(latest, LeaderLane.Route::new);
    }
    // A later leader is listed: an earlier one on another node may be gone, and its node not yet seen stopped.
    failForwarded(sent -> !sent.leader().equals(latest), "the write leader changed before it answered; the write "
        + "may still be applied");
    while (!waitingForLeader.isEmpty()) {
      LogLeader.Append next = waitingForLeader.poll();
      if (!next.result().isDone()) {
        send(next);
      }
    }
    if (isLocal(latest)) {
      lane.open(handedOver.get(latest)); // after those that waited: they were sent first
    }
    return this;
  }

  private void send(LogLeader.Append append) {
    long id = nextId++;
    if (isLocal(leader)) {
      if (!handedOver.get(leader).send(append)) {
        waitingForLeader.add(append); // seen stopped by a writer's send: the router hears of it next
      }
      return;
    }
    forwarded.put(id, new Forwarded(append, leader));
    append.result().whenComplete((result, failure) -> forwarded.remove(id));
    leader.tell(new LogLeader.Forward(id, append.command(), append.bytes(), append.onLeaderDisk() != null, answers));
  }

  private Behavior<Command> onAnswered(Answered answered) {
    LogLeader.Forwarded answer = answered.answer();
    Forwarded sent = forwarded.get(answer.id());
    if (sent == null) {
      return this; // its caller stopped waiting, or it failed when the leader changed
    }
    if (answer instanceof LogLeader.ForwardOnLeaderDisk onDisk) {
      if (sent.append().onLeaderDisk() != null) {
        sent.append().onLeaderDisk().complete(new LeaderAck(onDisk.logIndex(), onDisk.firstSlot()));
      }
    } else if (answer instanceof LogLeader.ForwardApplied applied) {
      List<CommandResult> results = CommandResultCodec.decode(applied.result());
      sent.append().result().complete(results.get(0));
    } else if (answer instanceof LogLeader.ForwardFailed failed) {
      sent.append().result().completeExceptionally(failed.failure().toException());
    }
    return this;
  }

  private Behavior<Command> onLeaderStopped(LeaderStopped stopped) {
    watched.remove(stopped.leader());
    if (stopped.leader().equals(leader)) {
      leader = null; // until the listing names the next one
    }
    LeaderLane.Route notWritten = handedOver.remove(stopped.leader());
    if (notWritten != null) {
      lane.closeIf(notWritten);
      LogUnavailableException failure = new LogUnavailableException("the write leader " + stopped.leader().path()
          .name() + " stopped before writing this command; it was not applied", null);
      notWritten.stopped().forEach(append -> append.result().completeExceptionally(failure));
    }
    failForwarded(sent -> sent.leader().equals(stopped.leader()), "the write leader " + stopped.leader().path()
        + " stopped before it answered; the write may still be applied");
    return this;
  }

  private void failForwarded(Predicate<Forwarded> which, String why) {
    LogUnavailableException failure = new LogUnavailableException(why, null);
    List.copyOf(forwarded.values()).stream().filter(which)
        .forEach(sent -> sent.append().result().completeExceptionally(failure));
  }

  private static boolean isLocal(ActorRef<?> ref) {
    return ref.path().address().hasLocalScope();
  }
}
