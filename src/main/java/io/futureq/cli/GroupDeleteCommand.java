package io.futureq.cli;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.futureq.api.grpc.DeleteGroupResponse;
import io.futureq.client.FutureQClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code futureq group delete}: unregisters a durable group. */
@Command(name = "delete", mixinStandardHelpOptions = true,
    description = {"Delete a durable group: its acks are forgotten, messages only it still held are deleted, and its "
        + "consumers' streams end with NOT_FOUND.", "A group that does not exist fails, exit 1."})
final class GroupDeleteCommand extends BrokerCommand {
  @Option(names = "--topic", required = true, paramLabel = "TOPIC", description = "Topic of the group.")
  String topic;

  @Option(names = "--group", required = true, paramLabel = "GROUP", description = "The group to delete.")
  String group;

  @Option(names = "--json", description = "Print one JSON object.")
  boolean json;

  @Override
  int run(FutureQClient client) throws InterruptedException {
    DeleteGroupResponse deleted = server.await(client.deleteGroup(topic, group));
    out().println(json ? JsonNodeFactory.instance.objectNode().put("topic", topic).put("group", group)
        .put("removed", deleted.getRemoved())
        : "deleted group " + group + " of topic " + topic + "; " + deleted.getRemoved()
        + " messages only it held were deleted");
    return 0;
  }
}
