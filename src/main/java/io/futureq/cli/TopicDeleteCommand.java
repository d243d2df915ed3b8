package io.futureq.cli;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.futureq.api.grpc.DeleteTopicResponse;
import io.futureq.client.FutureQClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code futureq topic delete}: deletes a topic's messages and groups. */
@Command(name = "delete", mixinStandardHelpOptions = true,
    description = {"Delete a topic: its messages and its groups; its consumers' streams end with NOT_FOUND.",
        "A topic that does not exist fails, exit 1."})
final class TopicDeleteCommand extends BrokerCommand {
  @Option(names = "--topic", required = true, paramLabel = "TOPIC", description = "The topic.")
  String topic;

  @Option(names = "--json", description = "Print one JSON object.")
  boolean json;

  @Override
  int run(FutureQClient client) throws InterruptedException {
    DeleteTopicResponse deleted = server.await(client.deleteTopic(topic));
    if (json) {
      ObjectNode reply = JsonNodeFactory.instance.objectNode().put("topic", topic).put("removed", deleted.getRemoved());
      deleted.getGroupsList().forEach(reply.putArray("groups")::add);
      out().println(reply);
      return 0;
    }
    out().println("deleted topic " + topic + "; " + deleted.getRemoved() + " messages and "
        + (deleted.getGroupsCount() == 0 ? "no groups" : "groups " + String.join(", ", deleted.getGroupsList())));
    return 0;
  }
}
