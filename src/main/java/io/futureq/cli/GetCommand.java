package io.futureq.cli;

import io.futureq.api.grpc.PendingMessage;
import io.futureq.client.FutureQClient;
import java.io.PrintWriter;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code futureq get}: one pending message, by key or id. */
@Command(name = "get", mixinStandardHelpOptions = true,
    description = {"Show one pending message, named by key or by message id.",
        "A message that is not pending (delivered and acked, cancelled, expired) fails with NOT_FOUND, exit 1."})
final class GetCommand extends BrokerCommand {
  @Option(names = "--topic", required = true, paramLabel = "TOPIC", description = "Topic of the message.")
  String topic;

  @ArgGroup(exclusive = true, multiplicity = "1")
  MessageTarget target;

  @Option(names = "--payload", description = "Show the payload too.")
  boolean payload;

  @Option(names = "--json", description = "Print one JSON object.")
  boolean json;

  @Override
  int run(FutureQClient client) throws InterruptedException {
    PendingMessage m = server.await(target.key != null ? client.getMessageByKey(topic, target.key, payload)
        : client.getMessageById(topic, target.id, payload));
    if (json) {
      out().println(PendingMessages.json(m, payload));
      return 0;
    }
    PrintWriter out = out();
    out.println("id: " + m.getMessageId());
    out.println("key: " + (m.getKey().isEmpty() ? "-" : m.getKey()));
    out.println("due: " + PendingMessages.due(m.getDueUnixMs()));
    out.println("enqueued: " + PendingMessages.due(m.getEnqueuedUnixMs()));
    out.println("expires: " + (m.getExpireUnixMs() == 0 ? "-" : PendingMessages.due(m.getExpireUnixMs())));
    out.println("size: " + m.getSize());
    out.println("headers: " + PendingMessages.headers(m.getHeadersMap()));
    if (payload) {
      out.println("payload: " + PendingMessages.payload(m));
    }
    return 0;
  }
}
