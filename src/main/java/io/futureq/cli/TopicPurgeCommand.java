package io.futureq.cli;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.futureq.api.grpc.PurgeTopicResponse;
import io.futureq.client.FutureQClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code futureq topic purge}: deletes a topic's pending messages, keeping its groups. */
@Command(name = "purge", mixinStandardHelpOptions = true,
    description = "Delete every message pending on the topic when the purge starts; its groups stay.")
final class TopicPurgeCommand extends BrokerCommand {
  @Option(names = "--topic", required = true, paramLabel = "TOPIC", description = "The topic.")
  String topic;

  @Option(names = "--json", description = "Print one JSON object.")
  boolean json;

  @Override
  int run(FutureQClient client) throws InterruptedException {
    PurgeTopicResponse purged = server.await(client.purgeTopic(topic));
    out().println(json ? JsonNodeFactory.instance.objectNode().put("topic", topic).put("removed", purged.getRemoved())
        : "purged topic " + topic + "; " + purged.getRemoved() + " messages deleted");
    return 0;
  }
}
