package io.futureq.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.futureq.api.grpc.ClusterInfo;
import io.futureq.api.grpc.LogShardInfo;
import io.futureq.api.grpc.Member;
import io.futureq.api.grpc.RaftInfo;
import io.futureq.client.FutureQClient;
import java.io.PrintWriter;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code futureq cluster}: shows the broker's mode, cluster members and, when clustered, its Raft view. */
@Command(name = "cluster", mixinStandardHelpOptions = true,
    subcommands = {ClusterJoinCommand.class, ClusterLeaveCommand.class},
    description = "Show the mode (standalone or cluster), this node's id and storage engine, the members with "
        + "their status and, in cluster mode, the Raft group as this node sees it.")
final class ClusterCommand extends BrokerCommand {
  @Option(names = "--json", description = "Print one JSON object.")
  boolean json;

  @Override
  int run(FutureQClient client) throws InterruptedException {
    ClusterInfo info = server.await(client.clusterInfo());
    if (json) {
      out().println(json(info));
      return 0;
    }
    PrintWriter out = out();
    out.println("mode: " + info.getMode());
    out.println("self: " + info.getSelfNodeId());
    out.println("storage: " + info.getStorage() + (info.getStorage().equals("memory")
        ? " (nothing survives a restart of this node)" : ""));
    out.println("members:");
    Table table = new Table("  ", "NODE ID", "ADDRESS", "GRPC ADDRESS", "STATUS");
    for (Member m : info.getMembersList()) {
      table.row(orDash(m.getNodeId()), m.getAddress(), orDash(m.getGrpcAddress()),
          m.getStatus() + (m.getReachable() ? "" : ", unreachable") + (m.getSelf() ? " (self)" : ""));
    }
    table.print(out);
    if (info.hasRaft()) {
      RaftInfo raft = info.getRaft();
      out.println("raft: leader " + orDash(raft.getLeaderId()) + ", this node " + raft.getRole() + ", term "
          + raft.getTerm() + ", commit index " + raft.getCommitIndex() + ", applied index " + raft.getAppliedIndex());
      out.println("raft peers: " + list(raft.getPeersMap()));
      out.println("raft listeners: " + list(raft.getListenersMap()));
      if (raft.getLogShardsCount() > 1) {
        out.println("log shards:");
        Table shards = new Table("  ", "SHARD", "LEADER", "THIS NODE", "TERM", "COMMIT INDEX", "APPLIED INDEX",
            "VOTERS");
        for (LogShardInfo shard : raft.getLogShardsList()) {
          shards.row(String.valueOf(shard.getShard()), orDash(shard.getLeaderId()), shard.getRole(),
              String.valueOf(shard.getTerm()), String.valueOf(shard.getCommitIndex()),
              String.valueOf(shard.getAppliedIndex()), ids(shard.getPeersMap()));
        }
        shards.print(out);
      }
    }
    return 0;
  }

  static ObjectNode json(ClusterInfo info) {
    ObjectNode out = JsonNodeFactory.instance.objectNode().put("mode", info.getMode())
        .put("self_node_id", info.getSelfNodeId()).put("storage", info.getStorage());
    ArrayNode members = out.putArray("members");
    for (Member m : info.getMembersList()) {
      ObjectNode member = members.addObject().put("node_id", m.getNodeId()).put("address", m.getAddress())
          .put("grpc_address", m.getGrpcAddress()).put("status", m.getStatus()).put("reachable", m.getReachable())
          .put("self", m.getSelf());
      m.getRolesList().forEach(member.putArray("roles")::add);
      m.getTopicsList().forEach(member.putArray("topics")::add);
    }
    if (info.hasRaft()) {
      RaftInfo raft = info.getRaft();
      ObjectNode view = out.putObject("raft").put("leader_id", raft.getLeaderId()).put("role", raft.getRole())
          .put("term", raft.getTerm()).put("commit_index", raft.getCommitIndex())
          .put("applied_index", raft.getAppliedIndex());
      raft.getPeersMap().forEach(view.putObject("peers")::put);
      raft.getListenersMap().forEach(view.putObject("listeners")::put);
      ArrayNode shards = view.putArray("log_shards");
      for (LogShardInfo shard : raft.getLogShardsList()) {
        ObjectNode described = shards.addObject().put("shard", shard.getShard())
            .put("leader_id", shard.getLeaderId()).put("role", shard.getRole()).put("term", shard.getTerm())
            .put("commit_index", shard.getCommitIndex()).put("applied_index", shard.getAppliedIndex());
        shard.getPeersMap().forEach(described.putObject("peers")::put);
        shard.getListenersMap().forEach(described.putObject("listeners")::put);
      }
    }
    return out;
  }

  /**
   * What {@code cluster join} and {@code cluster leave} print once the change is made: the voters of the group, or of
   * each log shard's group where there are several (each may live on a few of the nodes).
   */
  static void printVoters(PrintWriter out, String done, RaftInfo raft) {
    if (raft.getLogShardsCount() <= 1) {
      out.println(done + "; voters: " + ids(raft.getPeersMap()));
      return;
    }
    out.println(done + "; voters of each log shard:");
    for (LogShardInfo shard : raft.getLogShardsList()) {
      out.println("  " + shard.getShard() + ": " + ids(shard.getPeersMap()));
    }
  }

  private static String ids(Map<String, String> nodes) {
    return nodes.isEmpty() ? "-" : String.join(", ", new TreeSet<>(nodes.keySet()));
  }

  private static String list(Map<String, String> nodes) {
    return nodes.isEmpty() ? "-" : nodes.entrySet().stream().sorted(Map.Entry.comparingByKey())
        .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(", "));
  }

  private static String orDash(String s) {
    return s.isEmpty() ? "-" : s;
  }
}
