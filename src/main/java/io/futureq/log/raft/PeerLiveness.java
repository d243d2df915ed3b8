package io.futureq.log.raft;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What this node does about peers whose process died, with
 * {@link io.futureq.config.RaftSettings#watchPeerProcesses()} on: the {@link PeerProcessWatch} reports each death
 * to the listeners (the cluster's downing of the crashed member), then to each log shard's {@link EarlyElection}
 * (one node watches its peers once, for all its shards). Whatever the setting, it answers whether the voters still
 * alive are a majority.
 */
final class PeerLiveness implements AutoCloseable {
  private final Supplier<ReplicaView> replica;
  private final List<Consumer<String>> goneListeners = new CopyOnWriteArrayList<>();
  /** Null unless peer processes are watched. */
  private final PeerProcessWatch watch;

  /**
   * @param watch whether to watch the peers' processes; without, no peer is ever seen gone
   * @param replica whose group's majority {@link #majorityAlive} counts (null while this node holds no shard)
   * @param watched the peers to watch (node id to Raft address): those of every shard this node holds
   * @param shardElections one per log shard held, told of each death and each connection
   */
  PeerLiveness(boolean watch, Supplier<ReplicaView> replica, Supplier<Map<String, String>> watched,
      Supplier<List<EarlyElection>> shardElections) {
    this.replica = replica;
    this.watch = watch ? PeerProcessWatch.start(watched, new PeerProcessWatch.Listener() {
      @Override
      public void gone(String id) {
        List<EarlyElection> elections = shardElections.get();
        // Downing first: it only sends, while the early election waits for the survivors' answers.
        goneListeners.forEach(listener -> listener.accept(id));
        // Each shard's election waits for its survivors' answers: side by side, so the last shard is not later.
        for (int k = 1; k < elections.size(); k++) {
          EarlyElection election = elections.get(k);
          Thread thread = new Thread(() -> election.gone(id), "futureq-early-election-s" + k);
          thread.setDaemon(true);
          thread.start();
        }
        if (!elections.isEmpty()) {
          elections.get(0).gone(id);
        }
      }

      @Override
      public void connected(String id) {
        shardElections.get().forEach(election -> election.connected(id));
      }
    }) : null;
  }

  /** See {@link RaftEventLog#onPeerProcessGone}. */
  void onGone(Consumer<String> listener) {
    goneListeners.add(listener);
  }

  /** See {@link ReplicaHost#majorityAlive()}. */
  boolean majorityAlive() {
    ReplicaView view = replica.get();
    return view != null && view.majorityAlive(id -> watch != null && watch.isGone(id));
  }

  /** Stops the watch (the elections are their shards' to close). */
  @Override
  public void close() {
    if (watch != null) {
      watch.close();
    }
  }
}
