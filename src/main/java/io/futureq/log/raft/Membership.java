package io.futureq.log.raft;

import io.futureq.log.LogUnavailableException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.RaftProtos.CommitInfoProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.GroupInfoReply;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.protocol.exceptions.RaftRetryFailureException;
import org.apache.ratis.protocol.exceptions.ReconfigurationInProgressException;
import org.apache.ratis.protocol.exceptions.SetConfigurationException;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.RaftServer;

/**
 * Membership changes of the group, one at a time on a thread of their own. A new peer first joins as
 * a listener (it receives the log, or a snapshot, but does not vote) and is promoted to a voting
 * member once it has caught up, so adding a slow or empty node never stalls commits. Every change
 * is compare-and-set against the configuration this node has; if another change got in first (or
 * this node lags), the change is recomputed from the newer configuration, until the request timeout (adding a
 * listener: until it could have caught up, {@link #CATCH_UP_TIMEOUTS} of them).
 */
final class Membership implements AutoCloseable {
  /** A new listener must catch up within this many request timeouts, to be added and then promoted. */
  private static final int CATCH_UP_TIMEOUTS = 30;
  private static final Duration POLL = Duration.ofMillis(200);

  private final RaftServer server;
  private final RaftServerFactory.LeaderSpread spread;
  private final RaftGroupId groupId;
  private final Supplier<RaftGroup> group;
  private final RaftProperties properties;
  private final Parameters parameters;
  private final Duration timeout;
  private final ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
    Thread thread = new Thread(r, "futureq-raft-membership");
    thread.setDaemon(true);
    return thread;
  });

  /** {@code group} is the group to send requests to, as this node knows it now; {@code parameters} carry TLS. */
  Membership(RaftServer server, RaftServerFactory.LeaderSpread spread, Supplier<RaftGroup> group,
      RaftProperties properties, Parameters parameters, Duration timeout) {
    this.server = server;
    this.spread = spread;
    this.groupId = spread.groupId();
    this.group = group;
    this.properties = properties;
    this.parameters = parameters;
    this.timeout = timeout;
  }

  CompletableFuture<Void> addPeer(String id, String address) {
    return CompletableFuture.runAsync(() -> run("add " + id + " at " + address, client -> add(client, id, address)),
        executor);
  }

  CompletableFuture<Void> removePeer(String id) {
    return CompletableFuture.runAsync(() -> run("remove " + id, client -> {
      handOverFrom(client, id);
      change(client, conf -> {
        if (!conf.servers().containsKey(id) && !conf.listeners().containsKey(id)) {
          return null;
        }
        if (conf.servers().size() == 1 && conf.servers().containsKey(id)) {
          throw new IllegalArgumentException("cannot remove " + id + ": it is the last voting peer");
        }
        return conf.without(id);
      }, timeout);
    }), executor);
  }

  /**
   * If this replica leads, asks another voting member to take over (Raft's leadership transfer, which waits for it
   * to catch up:
   * no election timeout to wait out), and completes once one leads or the attempt ended; a failure is not an error,
   * the others elect a leader after the election timeout instead.
   */
  CompletableFuture<Void> handOverLeadership() {
    return CompletableFuture.runAsync(() -> {
      try {
        RaftServer.Division division = division();
        if (!division.getInfo().isLeader()) {
          return;
        }
        RaftPeerId self = division.getId();
        RaftPeerId successor = division.getRaftConf().getCurrentPeers().stream().map(RaftPeer::getId)
            .filter(id -> !id.equals(self)).findFirst().orElse(null);
        if (successor == null) {
          return;
        }
        run("hand leadership over to " + successor, client -> client.admin().transferLeadership(successor,
            timeout.toMillis()));
      } catch (IOException | RuntimeException e) {
        // The others elect a leader after the election timeout.
      }
    }, executor);
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }

  /**
   * If {@code id} leads the group, makes another voter lead before {@code id} is removed. A Ratis leader that commits
   * its own removal closes its division on the thread that holds the division's lock, and the closing waits for the
   * client writes queued behind that lock (Ratis 3.2.2): under publishing load, a node giving up its replica hung so
   * for good. The leaving node's priority goes to the lowest first (Ratis hands leadership only to a peer of the
   * highest priority, and yields to one by itself), then leadership is handed to the highest of the others.
   */
  private void handOverFrom(RaftClient client, String id) throws IOException, InterruptedException {
    Conf current = conf();
    if (!current.stable() || current.servers().size() < 2 || !id.equals(leader().toString())) {
      return;
    }
    Map<String, String> others = new TreeMap<>(current.servers());
    others.remove(id);
    List<RaftPeer> servers = new ArrayList<>(spread.peers(others));
    RaftPeer successor = servers.stream().max(Comparator.comparingInt(RaftPeer::getPriority)).orElseThrow();
    servers.add(RaftPeer.newBuilder().setId(id).setAddress(current.servers().get(id)).setPriority(0).build());
    try {
      client.admin().setConfiguration(SetConfigurationRequest.Arguments.newBuilder()
          .setMode(SetConfigurationRequest.Mode.COMPARE_AND_SET)
          .setServersInCurrentConf(peers(current.servers())).setListenersInCurrentConf(peers(current.listeners()))
          .setServersInNewConf(servers).setListenersInNewConf(peers(current.listeners())).build());
      client.admin().transferLeadership(successor.getId(), timeout.toMillis());
    } catch (IOException e) {
      // Checked below: what matters is who leads now.
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    while (id.equals(String.valueOf(division().getInfo().getLeaderId()))) {
      if (System.nanoTime() > deadline) {
        throw new IOException(id + " still leads after " + timeout.toSeconds() + " s of handing leadership over "
            + "before its removal; ask again");
      }
      Thread.sleep(POLL.toMillis());
    }
  }

  private void add(RaftClient client, String id, String address) throws IOException, InterruptedException {
    change(client, conf -> {
      String current = conf.servers().getOrDefault(id, conf.listeners().get(id));
      if (current != null && !current.equals(address)) {
        throw new IllegalArgumentException("node " + id + " is already a member at " + current + "; remove it first");
      }
      return current != null ? null : conf.without(id).withListener(id, address);
    }, timeout.multipliedBy(CATCH_UP_TIMEOUTS));
    awaitCatchUp(client, id);
    change(client, conf -> conf.servers().containsKey(id) ? null : conf.without(id).withServer(id, address),
        timeout);
  }

  /**
   * Applies {@code update} to the current configuration, compare-and-set; {@code update} returns null
   * when there is nothing to change. Retries with a fresh configuration while ours is stale, for up to {@code within}.
   * Adding a node takes as long as its catching up: the leader appends the new configuration only once the node has
   * (Ratis's staging), and meanwhile refuses other changes as in progress. A request whose answer did not come within
   * the client's timeout is sent again with the same call id, and refused if the first was applied meanwhile (the
   * configuration is no longer the one it names): before giving up, the configuration as it is now decides.
   */
  private void change(RaftClient client, UnaryOperator<Conf> update, Duration within)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (true) {
      Conf current = conf();
      IOException refused;
      if (current.stable()) {
        Conf target = update.apply(current);
        if (target == null) {
          return;
        }
        refused = apply(client, current, target);
        if (refused == null) {
          return;
        }
      } else {
        refused = new IOException("a configuration change is still in progress: " + current);
      }
      if (System.nanoTime() > deadline) {
        Conf now = conf();
        if (now.stable() && update.apply(now) == null) {
          return;
        }
        throw refused;
      }
      Thread.sleep(POLL.toMillis());
    }
  }

  /**
   * Sends the change; returns the refusal if the leader's configuration is not {@code current}, another change is in
   * progress, or no answer came within the client's attempts.
   */
  private IOException apply(RaftClient client, Conf current, Conf target) throws IOException {
    RaftClientReply reply;
    try {
      reply = client.admin().setConfiguration(SetConfigurationRequest.Arguments.newBuilder()
          .setMode(SetConfigurationRequest.Mode.COMPARE_AND_SET)
          .setServersInCurrentConf(peers(current.servers())).setListenersInCurrentConf(peers(current.listeners()))
          .setServersInNewConf(spread.peers(target.servers())).setListenersInNewConf(peers(target.listeners()))
          .build());
    } catch (SetConfigurationException | ReconfigurationInProgressException | RaftRetryFailureException e) {
      // The last: the client's attempts ran out unanswered (a node being added catches up meanwhile); applied or
      // not, the configuration as it is then decides.
      return e;
    }
    if (reply.isSuccess()) {
      return null;
    }
    if (reply.getException() instanceof SetConfigurationException
        || reply.getException() instanceof ReconfigurationInProgressException) {
      return reply.getException();
    }
    throw new IOException("the leader refused configuration " + target, reply.getException());
  }

  /** Waits until the leader knows {@code id} to have committed what the leader had committed when we started. */
  private void awaitCatchUp(RaftClient client, String id) throws IOException, InterruptedException {
    GroupInfoReply first = leaderInfo(client);
    long target = commitIndexOf(first, first.getServerId().toString());
    Duration limit = timeout.multipliedBy(CATCH_UP_TIMEOUTS);
    long deadline = System.nanoTime() + limit.toNanos();
    long reached = -1;
    while (System.nanoTime() < deadline) {
      reached = commitIndexOf(leaderInfo(client), id);
      if (reached >= target) {
        return;
      }
      Thread.sleep(POLL.toMillis());
    }
    throw new IOException("node " + id + " joined as a listener but reached index " + reached + " of " + target
        + " within " + limit.toSeconds() + "s; it stays a listener: add it again to promote it once it caught up");
  }

  private GroupInfoReply leaderInfo(RaftClient client) throws IOException, InterruptedException {
    return client.getGroupManagementApi(leader()).info(groupId);
  }

  /** The leader as this node knows it, waiting up to the request timeout while an election runs. */
  private RaftPeerId leader() throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      RaftPeerId leader = division().getInfo().getLeaderId();
      if (leader != null) {
        return leader;
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("no leader known after " + timeout.toMillis() + "ms");
      }
      Thread.sleep(POLL.toMillis());
    }
  }

  private Conf conf() throws IOException {
    RaftConfiguration conf = division().getRaftConf();
    boolean stable = conf.getPreviousPeers().isEmpty() && conf.getPreviousPeers(RaftPeerRole.LISTENER).isEmpty();
    return new Conf(RaftServerFactory.addresses(conf.getCurrentPeers()),
        RaftServerFactory.addresses(conf.getCurrentPeers(RaftPeerRole.LISTENER)), stable);
  }

  private RaftServer.Division division() throws IOException {
    return server.getDivision(groupId);
  }

  private static long commitIndexOf(GroupInfoReply info, String id) {
    for (CommitInfoProto commit : info.getCommitInfos()) {
      if (commit.getServer().getId().toStringUtf8().equals(id)) {
        return commit.getCommitIndex();
      }
    }
    return -1;
  }

  private static List<RaftPeer> peers(Map<String, String> addresses) {
    List<RaftPeer> out = new ArrayList<>();
    addresses.forEach((id, address) -> out.add(RaftServerFactory.peer(id, address)));
    return out;
  }

  private void run(String what, AdminCall call) {
    try (RaftClient client = RaftServerFactory.adminClient(properties, parameters, group.get(), timeout)) {
      call.run(client);
    } catch (IOException e) {
      throw new LogUnavailableException("cannot " + what + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LogUnavailableException("interrupted while trying to " + what, e);
    }
  }

  @FunctionalInterface
  private interface AdminCall {
    void run(RaftClient client) throws IOException, InterruptedException;
  }

  /** Voting members and listeners, node id to address; stable when no change is half done. */
  private record Conf(Map<String, String> servers, Map<String, String> listeners, boolean stable) {
    Conf without(String id) {
      Map<String, String> s = new TreeMap<>(servers);
      Map<String, String> l = new TreeMap<>(listeners);
      s.remove(id);
      l.remove(id);
      return new Conf(s, l, stable);
    }

    Conf withServer(String id, String address) {
      Map<String, String> s = new TreeMap<>(servers);
      s.put(id, address);
      return new Conf(s, listeners, stable);
    }

    Conf withListener(String id, String address) {
      Map<String, String> l = new TreeMap<>(listeners);
      l.put(id, address);
      return new Conf(servers, l, stable);
    }
  }
}
