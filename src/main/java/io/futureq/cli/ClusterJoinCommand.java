package io.futureq.cli;

import io.futureq.api.grpc.RaftInfo;
import io.futureq.client.FutureQClient;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code futureq cluster join}: adds a running node to the Raft group. */
@Command(name = "join", mixinStandardHelpOptions = true,
    description = "Add a node to the Raft group of every log shard: it first catches up as a non-voting listener, "
        + "then votes. Where each shard lives on fewer nodes than the cluster has (futureq.cluster.replication-factor)"
        + ", replicas move to the node instead, until no node holds two more than another. Start the node first, "
        + "with futureq.raft.join on and the current members and itself in futureq.raft.peers; waits until every "
        + "replica has moved. One membership change runs at a time in the cluster: asked for while another runs, "
        + "it is refused (FAILED_PRECONDITION).")
final class ClusterJoinCommand extends BrokerCommand {
  @Option(names = "--node-id", required = true, description = "The new node's futureq.node-id.")
  String nodeId;

  @Option(names = "--raft-address", required = true, paramLabel = "HOST:PORT",
      description = "The new node's Raft server address.")
  String raftAddress;

  @Override
  void prepare() {
    if (!raftAddress.matches("[^:\\s]+:\\d{1,5}")) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--raft-address must be HOST:PORT, got '"
          + raftAddress + "'");
    }
  }

  @Override
  int run(FutureQClient client) throws InterruptedException {
    RaftInfo raft = server.await(client.addRaftPeer(nodeId, raftAddress), FutureQClient.MEMBERSHIP_TIMEOUT);
    ClusterCommand.printVoters(out(), "joined " + nodeId, raft);
    return 0;
  }
}
