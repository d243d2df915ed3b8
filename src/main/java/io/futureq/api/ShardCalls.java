package io.futureq.api;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import io.futureq.config.ClusterSettings;
import io.futureq.log.LogShards;
import io.futureq.log.leader.LogLeader;
import io.futureq.serialization.CborSerializable;
import io.futureq.topic.ShardHolders;
import io.grpc.Status;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.IntPredicate;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.grpc.GrpcServiceException;

/**
 * How a node serves a request about a topic whose log shard it does not hold ({@code futureq.cluster
 * .replication-factor} below the node count): the API checks the caller's token and permissions where the request
 * arrived, then this sends the request, as its protobuf bytes, to a node that holds the shard (the node of the
 * shard's write leader when one is listed, so that a write takes no more hops than one relayed to the leader), which
 * runs the same handler on its replica and answers with the response's bytes or the gRPC status it failed with.
 * Calls travel over Pekko remoting (its large-message lane: a publish may be as large as a Raft entry), so cluster TLS
 * covers them.
 *
 * <p>Each node runs one actor ({@link #behavior}): listed under the keys of the shards it holds, it runs the calls
 * it gets; it follows the listings of every shard's holders and write leader, and sends this node's calls.
 */
public final class ShardCalls {
  /** Where the actor runs, under the user guardian: remoting sends its calls and answers on the large lane. */
  public static final String NAME = "shard-calls";

  /** What the actor accepts. */
  public sealed interface Command permits Send, SendToNode, Call, Answered, Listed, Hold, Release {}

  /** From this node: send a call, completing {@code answer}. Local only. */
  private record Send(int shard, String method, byte[] request, CompletableFuture<Answer> answer)
      implements Command {}

  /** Run {@code method} on shard {@code shard} with {@code request}'s bytes; answered with an {@link Answer}. */
  /** A call to node {@code node} itself (its id), wherever it is in the cluster. */
  private record SendToNode(String node, String method, byte[] request, CompletableFuture<Answer> answer)
      implements Command {}

  public record Call(long id, int shard, String method, byte[] request, ActorRef<Answer> replyTo)
      implements Command, CborSerializable {}

  /** A call's outcome: the response's bytes when {@code code} is 0 (OK), else the status it failed with. */
  public record Answer(long id, byte[] response, int code, String description) implements CborSerializable {}

  private record Answered(Answer answer) implements Command {}

  /** This node holds shard {@code shard} now: it is listed among its holders. */
  public record Hold(int shard) implements Command {}

  /** This node gives up shard {@code shard}: it is no longer listed among its holders. */
  public record Release(int shard) implements Command {}

  /** A listing of some shard's holders or write leader: one adapter for all (an actor has one per class). */
  private record Listed(Receptionist.Listing listing) implements Command {}

  /** A handler of one request type, on a shard this node holds. */
  @FunctionalInterface
  public interface Handler<Q> {
    CompletionStage<? extends Message> handle(int shard, Q request);
  }

  private record Registered<Q extends Message>(Parser<Q> parser, Handler<Q> handler) {
    CompletionStage<? extends Message> run(int shard, byte[] bytes) throws InvalidProtocolBufferException {
      return handler.handle(shard, parser.parseFrom(bytes));
    }
  }

  private final LogShards shards;
  private final ShardHolders holders;
  private final IntPredicate listedAtStart;
  private final Duration timeout;
  private final Map<String, Registered<?>> handlers = new ConcurrentHashMap<>();
  private volatile ActorRef<Command> actor;

  /**
   * @param shards this node's log shards: which it holds
   * @param holders told every shard's holders as they are listed
   * @param listedAtStart whether this node is listed among a held shard's holders from the start: a voter of its
   *     group is; a replica that waits to be added is listed once it was ({@link #holds})
   * @param timeout how long a call may take, its hop included
   */
  public ShardCalls(LogShards shards, ShardHolders holders, IntPredicate listedAtStart, Duration timeout) {
    this.shards = shards;
    this.holders = holders;
    this.listedAtStart = listedAtStart;
    this.timeout = timeout;
  }

  /** The receptionist key of the nodes holding shard {@code shard}. */
  static ServiceKey<Command> key(int shard) {
    return ServiceKey.create(Command.class, "futureq-shard-calls-s" + shard);
  }

  /** Lets calls run {@code method} here: parses the request with {@code parser} and hands it to {@code handler}. */
  public <Q extends Message> void register(String method, Parser<Q> parser, Handler<Q> handler) {
    handlers.put(method, new Registered<>(parser, handler));
  }

  /**
   * {@code here} where this node holds {@code topicOf(request)}'s shard, else the same on a node that does: registers
   * {@code here} as {@code method} and returns what runs the request.
   */
  public <Q extends Message, R extends Message> Function<Q, CompletionStage<R>> topical(String method,
      Parser<Q> requests, Parser<R> responses, Function<Q, String> topicOf, Function<Q, CompletionStage<R>> here) {
    register(method, requests, (shard, request) -> here.apply(request));
    return request -> {
      int shard = LogShards.indexOf(topicOf.apply(request), shards.count());
      return shards.get(shard).held() ? here.apply(request)
          : GrpcErrors.translate(call(shard, method, request, responses));
    };
  }

  /** The actor; give what it runs as to {@link #attach}. */
  public Behavior<Command> behavior() {
    return Behaviors.setup(ctx -> new Running(ctx).behavior());
  }

  public void attach(ActorRef<Command> actor) {
    this.actor = actor;
  }

  /**
   * Runs {@code method} with {@code request} on node {@code node} (its id). Fails with the status the handler failed
   * with there, UNAVAILABLE when no such member is up, DEADLINE_EXCEEDED after {@code within}.
   */
  public <R extends Message> CompletableFuture<R> callNode(String node, String method, Message request,
      Parser<R> parser, Duration within) {
    CompletableFuture<Answer> answer = new CompletableFuture<>();
    actor.tell(new SendToNode(node, method, request.toByteArray(), answer));
    return answered(answer, parser, "node " + node, within);
  }

  /** Lists this node among the holders of {@code shard} (it took up a replica), or no longer ({@code held} false). */
  public void holds(int shard, boolean held) {
    actor.tell(held ? new Hold(shard) : new Release(shard));
  }

  /**
   * Runs {@code method} with {@code request} on a node holding shard {@code shard}. Fails with the status the
   * handler failed with there, UNAVAILABLE when no node holding the shard is listed, DEADLINE_EXCEEDED after the
   * timeout.
   */
  public <R extends Message> CompletableFuture<R> call(int shard, String method, Message request, Parser<R> parser) {
    return call(shard, method, request, parser, timeout);
  }

  /** As above, waiting up to {@code within} (a step of moving a replica takes longer than a request). */
  public <R extends Message> CompletableFuture<R> call(int shard, String method, Message request, Parser<R> parser,
      Duration within) {
    CompletableFuture<Answer> answer = new CompletableFuture<>();
    actor.tell(new Send(shard, method, request.toByteArray(), answer));
    return answered(answer, parser, "the node holding log shard " + shard, within);
  }

  private static <R extends Message> CompletableFuture<R> answered(CompletableFuture<Answer> answer, Parser<R> parser,
      String from, Duration within) {
    return answer.orTimeout(within.toMillis(), TimeUnit.MILLISECONDS).thenApply(a -> {
      if (a.code() != 0) {
        throw new GrpcServiceException(Status.fromCodeValue(a.code()).withDescription(a.description()));
      }
      try {
        return parser.parseFrom(a.response());
      } catch (InvalidProtocolBufferException e) {
        throw new IllegalStateException("a malformed answer from " + from, e);
      }
    });
  }

  private final class Running {
    private final ActorContext<Command> ctx;
    private final ActorRef<Answer> answers;
    private final Map<Integer, List<ActorRef<Command>>> holders = new HashMap<>();
    private final Map<Integer, Address> leaders = new HashMap<>();
    /** This node's calls not answered yet, by id; a caller that stopped waiting leaves its entry to the answer. */
    private final Map<Long, CompletableFuture<Answer>> waiting = new HashMap<>();
    private long nextId;

    Running(ActorContext<Command> ctx) {
      this.ctx = ctx;
      this.answers = ctx.messageAdapter(Answer.class, Answered::new);
      for (LogShards.Shard shard : shards.held()) {
        if (listedAtStart.test(shard.index())) {
          ctx.getSystem().receptionist().tell(Receptionist.register(key(shard.index()), ctx.getSelf()));
        }
      }
      ActorRef<Receptionist.Listing> listings = ctx.messageAdapter(Receptionist.Listing.class, Listed::new);
      for (int k = 0; k < shards.count(); k++) {
        ctx.getSystem().receptionist().tell(Receptionist.subscribe(key(k), listings));
        ctx.getSystem().receptionist().tell(Receptionist.subscribe(LogLeader.serviceKey(k), listings));
      }
    }

    Behavior<Command> behavior() {
      return Behaviors.receive(Command.class)
          .onMessage(Send.class, this::send)
          .onMessage(SendToNode.class, this::sendToNode)
          .onMessage(Call.class, this::run)
          .onMessage(Answered.class, m -> {
            CompletableFuture<Answer> answer = waiting.remove(m.answer().id());
            if (answer != null) {
              answer.complete(m.answer());
            }
            return Behaviors.same();
          })
          .onMessage(Listed.class, m -> listed(m.listing()))
          .onMessage(Hold.class, m -> {
            ctx.getSystem().receptionist().tell(Receptionist.register(key(m.shard()), ctx.getSelf()));
            return Behaviors.same();
          })
          .onMessage(Release.class, m -> {
            ctx.getSystem().receptionist().tell(Receptionist.deregister(key(m.shard()), ctx.getSelf()));
            return Behaviors.same();
          })
          .build();
    }

    private Behavior<Command> listed(Receptionist.Listing listing) {
      for (int k = 0; k < shards.count(); k++) {
        int shard = k;
        if (listing.isForKey(key(k))) {
          List<ActorRef<Command>> listed = List.copyOf(listing.getServiceInstances(key(k)));
          holders.put(k, listed);
          ShardCalls.this.holders.listed(k, listed.stream().map(ref -> ref.path().address()).toList());
        } else if (listing.isForKey(LogLeader.serviceKey(k))) {
          // The latest term's leader has the greatest name (see WriteRouter).
          listing.getServiceInstances(LogLeader.serviceKey(k)).stream()
              .max(Comparator.comparing(ref -> ref.path().name()))
              .ifPresentOrElse(leader -> leaders.put(shard, leader.path().address()), () -> leaders.remove(shard));
        }
      }
      return Behaviors.same();
    }

    private Behavior<Command> send(Send send) {
      List<ActorRef<Command>> listed = holders.getOrDefault(send.shard(), List.of());
      if (listed.isEmpty()) {
        send.answer().complete(new Answer(0, new byte[0], Status.Code.UNAVAILABLE.value(), "no node holding log "
            + "shard " + send.shard() + " is reachable from this node; try again, or ask another node"));
        return Behaviors.same();
      }
      Address leader = leaders.get(send.shard());
      ActorRef<Command> target = listed.stream().filter(ref -> ref.path().address().equals(leader)).findFirst()
          .orElse(listed.get(ThreadLocalRandom.current().nextInt(listed.size())));
      long id = expect(send.answer());
      target.tell(new Call(id, send.shard(), send.method(), send.request(), answers));
      return Behaviors.same();
    }

    private Behavior<Command> sendToNode(SendToNode send) {
      Address address = null;
      for (Member member : Cluster.get(ctx.getSystem()).state().getMembers()) {
        if (member.hasRole(ClusterSettings.nodeRole(send.node())) && member.status() == MemberStatus.up()) {
          address = member.address();
        }
      }
      if (address == null) {
        send.answer().complete(new Answer(0, new byte[0], Status.Code.UNAVAILABLE.value(), "node " + send.node()
            + " is no member of the cluster that is up (one started with futureq.raft.join joins within seconds: call "
            + "again once it has)"));
        return Behaviors.same();
      }
      long id = expect(send.answer());
      Adapter.toClassic(ctx.getSystem()).actorSelection(address + "/user/" + NAME)
          .tell(new Call(id, -1, send.method(), send.request(), answers), null); // no sender: it answers replyTo
      return Behaviors.same();
    }

    /** Keeps {@code answer} until its call is answered, under the id it returns. */
    private long expect(CompletableFuture<Answer> answer) {
      long id = nextId++;
      waiting.put(id, answer);
      // A caller that gave up (its timeout) no longer needs its entry.
      answer.whenComplete((a, failure) -> {
        if (failure != null) {
          ctx.getSelf().tell(new Answered(new Answer(id, new byte[0], Status.Code.CANCELLED.value(), "")));
        }
      });
      return id;
    }

    private Behavior<Command> run(Call call) {
      Registered<?> handler = handlers.get(call.method());
      CompletionStage<? extends Message> response;
      try {
        if (handler == null) {
          throw new IllegalStateException("no handler of " + call.method() + " on this node");
        }
        response = handler.run(call.shard(), call.request());
      } catch (InvalidProtocolBufferException | RuntimeException e) {
        response = CompletableFuture.failedFuture(e);
      }
      response.whenComplete((r, failure) -> {
        Status status = failure == null ? Status.OK : GrpcErrors.toStatus(failure);
        call.replyTo().tell(new Answer(call.id(), failure == null ? r.toByteArray() : new byte[0],
            status.getCode().value(), status.getDescription() == null ? "" : status.getDescription()));
      });
      return Behaviors.same();
    }
  }
}
