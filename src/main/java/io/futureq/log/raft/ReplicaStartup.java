package io.futureq.log.raft;

import io.futureq.config.RaftSettings;
import io.futureq.log.BrokerStateMachine;
import io.futureq.log.EventLog.AppliedListener;
import io.futureq.log.WriteQueueLimit;
import io.futureq.storage.OrderedStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;

/**
 * How {@link RaftEventLog#start} brings this node's replica up: it checks that the store and the Raft storage
 * belong together, starts the Ratis server over a {@link RatisStateMachine}, and builds what the log needs around
 * it (the in-process leader submissions, the replica's own submissions, membership, the early
 * election). If any step fails, the server is closed again, so a failed start leaves no server running.
 */
final class ReplicaStartup {
  private ReplicaStartup() {}

  /** See {@link RaftEventLog#start}; {@code tuning} may change Ratis properties before the server is built. */
  static RaftEventLog start(RaftSettings settings, OrderedStore store, BrokerStateMachine stateMachine,
      WriteQueueLimit limit, AppliedListener listener, LongConsumer applyNanos,
      Consumer<Throwable> onFatal, Consumer<RaftProperties> tuning) {
    if (stateMachine.appliedIndex() > 0 && !Files.isDirectory(RaftServerFactory.groupDir(settings))) {
      throw new IllegalStateException("the store has applied log index " + stateMachine.appliedIndex()
          + " but the Raft storage " + RaftServerFactory.groupDir(settings) + " is new; a store written by the "
          + "standalone log or kept after wiping the Raft storage would skip entries: wipe both or neither");
    }
    RaftProperties properties = RaftServerFactory.properties(settings);
    tuning.accept(properties);
    LeaderSubmit submissions = new LeaderSubmit(RaftPeerId.valueOf(settings.nodeId()), settings.requestTimeout());
    RatisStateMachine ratis = new RatisStateMachine(store, stateMachine, listener, applyNanos, onFatal, submissions);
    RaftServer server = null;
    try {
      server = RaftServerFactory.server(settings, properties, ratis);
      submissions.attach(server);
      server.start();
      RaftServer started = server;
      Supplier<RaftGroup> group = () -> RaftServerFactory.currentGroup(started, settings);
      ReplicaView replica = new ReplicaView(started, settings.nodeId(), ratis::appliedIndex);
      ReplicaSubmit ownCommands = new ReplicaSubmit(leader -> {
        RaftGroup current = group.get();
        return RaftServerFactory.client(settings, properties, current,
            leader != null && current.getPeer(leader) != null ? leader : null);
      }, replica, submissions, settings.requestTimeout(), limit);
      return new RaftEventLog(settings, server, replica, ratis, submissions, ownCommands,
          new Membership(server, group, properties, RaftServerFactory.parameters(settings.tls()),
              settings.requestTimeout()),
          new EarlyElection(server, properties, RaftServerFactory.parameters(settings.tls())));
    } catch (IOException | RuntimeException e) {
      closeAfterFailure(server, e);
      throw new UncheckedIOException("cannot start the Raft server of " + settings.nodeId() + " on "
          + settings.address() + " with storage " + settings.storageDir() + ": " + e.getMessage(),
          e instanceof IOException io ? io : new IOException(e));
    }
  }

  private static void closeAfterFailure(RaftServer server, Exception cause) {
    if (server != null) {
      try {
        server.close();
      } catch (IOException | RuntimeException e) {
        cause.addSuppressed(e);
      }
    }
  }
}
