package io.futureq.log.raft;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * What this node does about peers whose process died, with
 * {@link io.futureq.config.RaftSettings#watchPeerProcesses()} on: the {@link PeerProcessWatch} reports each death
 * to the listeners (the cluster's downing of the crashed member), then to the {@link EarlyElection}. Whatever the
 * setting, it answers whether the voters still alive are a majority.
 */
final class PeerLiveness implements AutoCloseable {
  private final ReplicaView replica;
  private final EarlyElection earlyElection;
  private final List<Consumer<String>> goneListeners = new CopyOnWriteArrayList<>();
  /** Null unless peer processes are watched. */
  private final PeerProcessWatch watch;

  /** @param watch whether to watch the peers' processes; without, no peer is ever seen gone */
  PeerLiveness(boolean watch, ReplicaView replica, EarlyElection earlyElection) {
    this.replica = replica;
    this.earlyElection = earlyElection;
    this.watch = watch ? PeerProcessWatch.start(replica::otherPeers, new PeerProcessWatch.Listener() {
      @Override
      public void gone(String id) {
        // Downing first: it only sends, while the early election waits for the survivors' answers.
        goneListeners.forEach(listener -> listener.accept(id));
        earlyElection.gone(id);
      }

      @Override
      public void connected(String id) {
        earlyElection.connected(id);
      }
    }) : null;
  }

  /** See {@link RaftEventLog#onPeerProcessGone}. */
  void onGone(Consumer<String> listener) {
    goneListeners.add(listener);
  }

  /** See {@link RaftEventLog#majorityAlive()}. */
  boolean majorityAlive() {
    return replica.majorityAlive(id -> watch != null && watch.isGone(id));
  }

  /** Stops the watch, then the early election. */
  @Override
  public void close() {
    if (watch != null) {
      watch.close();
    }
    try {
      earlyElection.close();
    } catch (IOException e) {
      // its client only asked peers for their last entry: nothing to lose
    }
  }
}
