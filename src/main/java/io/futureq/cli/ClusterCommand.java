package io.futureq.cli;

import io.futureq.api.grpc.ClusterInfo;
import io.futureq.api.grpc.Member;
import io.futureq.client.FutureQClient;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code futureq cluster}: shows the broker's mode and cluster members. */
@Command(name = "cluster", mixinStandardHelpOptions = true,
    description = "Show the mode (standalone or cluster), this node's id and the members with their status.")
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
    out.println("members:");
    Table table = new Table("  ", "NODE ID", "ADDRESS", "GRPC ADDRESS", "STATUS");
    for (Member m : info.getMembersList()) {
      table.row(orDash(m.getNodeId()), m.getAddress(), orDash(m.getGrpcAddress()),
          m.getStatus() + (m.getSelf() ? " (self)" : ""));
    }
    table.print(out);
    return 0;
  }

  static Json json(ClusterInfo info) {
    return Json.object().put("mode", info.getMode()).put("self_node_id", info.getSelfNodeId())
        .putObjects("members", info.getMembersList().stream().map(m -> Json.object().put("node_id", m.getNodeId())
            .put("address", m.getAddress()).put("grpc_address", m.getGrpcAddress()).put("status", m.getStatus())
            .put("self", m.getSelf()).putStrings("roles", m.getRolesList())).toList());
  }

  private static String orDash(String s) {
    return s.isEmpty() ? "-" : s;
  }
}
