package io.futureq.cli;

import io.futureq.api.grpc.RaftInfo;
import io.futureq.client.FutureQClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code futureq cluster leave}: removes a node from the Raft group. */
@Command(name = "leave", mixinStandardHelpOptions = true,
    description = "Remove a node from the Raft group of every log shard (stop it afterwards). Where each shard lives "
        + "on fewer nodes than the cluster has, the node's replicas move to the other nodes first; waits until they "
        + "have. One membership change runs at a time in the cluster: asked for while another runs, it is refused "
        + "(FAILED_PRECONDITION).")
final class ClusterLeaveCommand extends BrokerCommand {
  @Option(names = "--node-id", required = true, description = "The node's futureq.node-id.")
  String nodeId;

  @Override
  int run(FutureQClient client) throws InterruptedException {
    RaftInfo raft = server.await(client.removeRaftPeer(nodeId), FutureQClient.MEMBERSHIP_TIMEOUT);
    ClusterCommand.printVoters(out(), "removed " + nodeId, raft);
    return 0;
  }
}
