package io.futureq.log.raft;

import io.futureq.log.LogUnavailableException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.RaftProtos.CommitInfoProto;
import org.apache.ratis.proto.RaftProtos.RaftConfigurationProto;
import org.apache.ratis.protocol.GroupInfoReply;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.util.ProtoUtils;

/**
 * Membership changes of the group, one at a time on a thread of their own. A new peer first joins as
 * a listener (it receives the log, or a snapshot, but does not vote) and is promoted to a voting
 * member once it has caught up, so adding a slow or empty node never stalls commits. Every change
 * is compare-and-set against the leader's current configuration, so concurrent changes cannot
 * silently undo each other.
 */
final class Membership implements AutoCloseable {
  /** A new listener must catch up within this many request timeouts before it is promoted. */
  private static final int CATCH_UP_TIMEOUTS = 30;
  private static final Duration POLL = Duration.ofMillis(200);

  private final RaftServer server;
  private final Supplier<RaftGroup> group;
  private final RaftProperties properties;
  private final Duration timeout;
  private final ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
    Thread thread = new Thread(r, "futureq-raft-membership");
    thread.setDaemon(true);
    return thread;
  });

  /** {@code group} is the group to send requests to, as this node knows it now. */
  Membership(RaftServer server, Supplier<RaftGroup> group, RaftProperties properties, Duration timeout) {
    this.server = server;
    this.group = group;
    this.properties = properties;
    this.timeout = timeout;
  }

  CompletableFuture<Void> addPeer(String id, String address) {
    return CompletableFuture.runAsync(() -> run("add " + id + " at " + address, client -> add(client, id, address)),
        executor);
  }

  CompletableFuture<Void> removePeer(String id) {
    return CompletableFuture.runAsync(() -> run("remove " + id, client -> remove(client, id)), executor);
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }

  private void add(RaftClient client, String id, String address) throws IOException, InterruptedException {
    Conf conf = leaderConf(client);
    String current = conf.servers().get(id);
    if (current != null) {
      if (current.equals(address)) {
        return;
      }
      throw new IllegalArgumentException("node " + id + " is already a peer at " + current + "; remove it first");
    }
    Map<String, String> listeners = new TreeMap<>(conf.listeners());
    listeners.put(id, address);
    change(client, conf, conf.servers(), listeners);
    awaitCatchUp(client, id);
    Conf joined = leaderConf(client);
    Map<String, String> servers = new TreeMap<>(joined.servers());
    servers.put(id, address);
    listeners = new TreeMap<>(joined.listeners());
    listeners.remove(id);
    change(client, joined, servers, listeners);
  }

  private void remove(RaftClient client, String id) throws IOException, InterruptedException {
    Conf conf = leaderConf(client);
    if (!conf.servers().containsKey(id) && !conf.listeners().containsKey(id)) {
      return;
    }
    Map<String, String> servers = new TreeMap<>(conf.servers());
    servers.remove(id);
    if (servers.isEmpty()) {
      throw new IllegalArgumentException("cannot remove " + id + ": it is the last voting peer");
    }
    Map<String, String> listeners = new TreeMap<>(conf.listeners());
    listeners.remove(id);
    change(client, conf, servers, listeners);
  }

  /** Waits until the leader knows {@code id} to have committed what the leader had committed when we started. */
  private void awaitCatchUp(RaftClient client, String id) throws IOException, InterruptedException {
    GroupInfoReply first = leaderInfo(client);
    long target = commitIndexOf(first, first.getServerId().toString());
    long deadline = System.nanoTime() + timeout.multipliedBy(CATCH_UP_TIMEOUTS).toNanos();
    long reached = -1;
    while (System.nanoTime() < deadline) {
      reached = commitIndexOf(leaderInfo(client), id);
      if (reached >= target) {
        return;
      }
      Thread.sleep(POLL.toMillis());
    }
    throw new LogUnavailableException("node " + id + " joined as a listener but reached index " + reached + " of "
        + target + " within " + timeout.multipliedBy(CATCH_UP_TIMEOUTS).toSeconds()
        + "s; it stays a listener: add it again to promote it once it caught up", null);
  }

  private void change(RaftClient client, Conf current, Map<String, String> servers, Map<String, String> listeners)
      throws IOException {
    RaftClientReply reply = client.admin().setConfiguration(SetConfigurationRequest.Arguments.newBuilder()
        .setMode(SetConfigurationRequest.Mode.COMPARE_AND_SET)
        .setServersInCurrentConf(peers(current.servers())).setListenersInCurrentConf(peers(current.listeners()))
        .setServersInNewConf(peers(servers)).setListenersInNewConf(peers(listeners)).build());
    if (!reply.isSuccess()) {
      throw new IOException("the leader refused configuration " + servers + " with listeners " + listeners,
          reply.getException());
    }
  }

  private Conf leaderConf(RaftClient client) throws IOException, InterruptedException {
    RaftConfigurationProto conf = leaderInfo(client).getConf().orElseThrow(
        () -> new IOException("the leader did not report its configuration"));
    return new Conf(RaftServerFactory.addresses(ProtoUtils.toRaftPeers(conf.getPeersList())),
        RaftServerFactory.addresses(ProtoUtils.toRaftPeers(conf.getListenersList())));
  }

  private GroupInfoReply leaderInfo(RaftClient client) throws IOException, InterruptedException {
    return client.getGroupManagementApi(leader()).info(RaftServerFactory.GROUP_ID);
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

  private RaftServer.Division division() throws IOException {
    return server.getDivision(RaftServerFactory.GROUP_ID);
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
    try {
      try (RaftClient client = RaftServerFactory.adminClient(properties, group.get(), timeout)) {
        call.run(client);
      }
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

  private record Conf(Map<String, String> servers, Map<String, String> listeners) {}
}
