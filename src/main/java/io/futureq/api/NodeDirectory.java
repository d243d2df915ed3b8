package io.futureq.api;

import io.futureq.serialization.CborSerializable;
import io.futureq.topic.LocalTopics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.Cluster;

/**
 * One actor per node, at {@code /user/node-directory}, that tells who this node is: its id, its
 * gRPC address and the topics it hosts. Admin.GetClusterInfo asks every member's, by that path on
 * the member's address: the receptionist would do too, but its listing reaches other nodes by
 * gossip seconds after they start, and a client that asked then learnt no other member's address.
 */
public final class NodeDirectory {
  /** Its name under /system on every node. */
  public static final String NAME = "node-directory";

  public sealed interface Command extends CborSerializable {}

  public record Describe(ActorRef<Description> replyTo) implements Command {}

  /** What a node says of itself. */
  public record Description(String nodeId, String address, String grpcAddress, Set<String> topics)
      implements CborSerializable {}

  private NodeDirectory() {}

  public static Behavior<Command> create(String nodeId, String address, String grpcAddress, LocalTopics topics) {
    return Behaviors.receive(Command.class)
        .onMessage(Describe.class, d -> {
          d.replyTo().tell(new Description(nodeId, address, grpcAddress, topics.names()));
          return Behaviors.same();
        })
        .build();
  }

  /**
   * The descriptions of the members this node reaches; a member its failure detector marked
   * unreachable is not asked (a crashed node would hold the answer for the whole timeout, and clients
   * discover the cluster through it while failing over), and one that does not answer in time is left
   * out.
   */
  public static CompletionStage<List<Description>> describeReachable(ActorSystem<?> system, Duration timeout) {
    Cluster cluster = Cluster.get(system);
    Set<Address> unreachable = new HashSet<>();
    cluster.state().getUnreachable().forEach(m -> unreachable.add(m.address()));
    Set<Address> members = new LinkedHashSet<>();
    members.add(cluster.selfAddress());
    cluster.state().getMembers().forEach(m -> members.add(m.address()));
    List<CompletableFuture<Description>> answers = new ArrayList<>();
    for (Address member : members) {
      if (unreachable.contains(member)) {
        continue;
      }
      answers.add(Adapter.toClassic(system).actorSelection(member + "/user/" + NAME).resolveOne(timeout)
          .thenCompose(directory -> AskPattern.<Command, Description>ask(Adapter.toTyped(directory), Describe::new,
              timeout, system.scheduler()))
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
  }
}
