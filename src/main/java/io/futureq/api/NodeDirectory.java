package io.futureq.api;

import io.futureq.serialization.CborSerializable;
import io.futureq.topic.LocalTopics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;
import org.apache.pekko.cluster.Cluster;

/**
 * One actor per node, registered with the receptionist, that tells who this node is: its id, its
 * gRPC address and the topics it hosts. Admin.GetClusterInfo asks every member's.
 */
public final class NodeDirectory {
  static final ServiceKey<Command> KEY = ServiceKey.create(Command.class, "futureq-node");

  public sealed interface Command extends CborSerializable {}

  public record Describe(ActorRef<Description> replyTo) implements Command {}

  /** What a node says of itself. */
  public record Description(String nodeId, String address, String grpcAddress, Set<String> topics)
      implements CborSerializable {}

  private NodeDirectory() {}

  public static Behavior<Command> create(String nodeId, String address, String grpcAddress, LocalTopics topics) {
    return Behaviors.setup(ctx -> {
      ctx.getSystem().receptionist().tell(Receptionist.register(KEY, ctx.getSelf()));
      return Behaviors.receive(Command.class)
          .onMessage(Describe.class, d -> {
            d.replyTo().tell(new Description(nodeId, address, grpcAddress, topics.names()));
            return Behaviors.same();
          })
          .build();
    });
  }

  /**
   * The descriptions of the members this node reaches; a member its failure detector marked
   * unreachable is not asked (a crashed node would hold the answer for the whole timeout, and clients
   * discover the cluster through it while failing over), and one that does not answer in time is left
   * out.
   */
  public static CompletionStage<List<Description>> describeReachable(ActorSystem<?> system, Duration timeout) {
    Set<Address> unreachable = new HashSet<>();
    Cluster.get(system).state().getUnreachable().forEach(m -> unreachable.add(m.address()));
    CompletionStage<Receptionist.Listing> listing = AskPattern.ask(system.receptionist(),
        replyTo -> Receptionist.find(KEY, replyTo), timeout, system.scheduler());
    return listing.thenCompose(l -> {
      List<CompletableFuture<Description>> answers = new ArrayList<>();
      for (ActorRef<Command> node : l.getServiceInstances(KEY)) {
        if (unreachable.contains(node.path().address())) {
          continue;
        }
        answers.add(AskPattern.<Command, Description>ask(node, Describe::new, timeout, system.scheduler())
            .toCompletableFuture().exceptionally(e -> null));
      }
      return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).thenApply(v -> {
        List<Description> out = new ArrayList<>();
        answers.forEach(a -> {
          if (a.join() != null) {
            out.add(a.join());
          }
        });
        return out;
      });
    });
  }
}
