package io.futureq.topic;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.pekko.actor.Address;

/**
 * The nodes holding a replica of each log shard, as this node last heard: each node lists itself for the shards it
 * holds (api/ShardCalls does, and tells this what the receptionist lists). Where a shard's topics may run when not
 * every node holds every shard ({@link HolderAllocation}); a node that takes up or gives up a replica while it runs
 * is followed here, where a cluster role would be fixed for the process's life.
 */
public final class ShardHolders {
  private final Address self;
  private final Map<Integer, Set<Address>> byShard = new ConcurrentHashMap<>();
  /** Waiting for a shard's first holder: guarded by this. */
  private final Map<Integer, List<CompletableFuture<Void>>> waiting = new HashMap<>();

  /** @param self this node's address: an actor here has a local address, which stands for it */
  public ShardHolders(Address self) {
    this.self = self;
  }

  /** Shard {@code shard}'s holders are now the nodes of {@code nodes}' addresses (actors' or nodes'). */
  public void listed(int shard, Collection<Address> nodes) {
    Set<Address> holders = nodes.stream().map(this::node).collect(Collectors.toUnmodifiableSet());
    byShard.put(shard, holders);
    if (holders.isEmpty()) {
      return;
    }
    List<CompletableFuture<Void>> woken;
    synchronized (this) {
      woken = waiting.remove(shard);
    }
    if (woken != null) {
      woken.forEach(w -> w.complete(null));
    }
  }

  /** Whether the node at {@code address} (an actor's or a node's) holds shard {@code shard}. */
  public boolean holds(int shard, Address address) {
    return byShard.getOrDefault(shard, Set.of()).contains(node(address));
  }

  /** Completes once some node is known to hold shard {@code shard}, or fails with a timeout after {@code wait}. */
  CompletableFuture<Void> someHolder(int shard, Duration wait) {
    CompletableFuture<Void> known = new CompletableFuture<>();
    synchronized (this) {
      if (byShard.getOrDefault(shard, Set.of()).isEmpty()) {
        waiting.computeIfAbsent(shard, k -> new ArrayList<>()).add(known);
      } else {
        known.complete(null);
      }
    }
    // A listing between the look and the wait completed it; one that came before the look was seen by it.
    return known.orTimeout(wait.toMillis(), TimeUnit.MILLISECONDS);
  }

  private Address node(Address address) {
    return address.hasGlobalScope() ? address : self;
  }
}
