package io.futureq.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.futureq.api.grpc.ListMessagesRequest;
import io.futureq.api.grpc.ListMessagesResponse;
import io.futureq.api.grpc.PendingMessage;
import io.futureq.client.FutureQClient;
import java.time.Instant;
import java.util.Arrays;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** {@code futureq peek}: one page of a topic's pending messages, in due order. */
@Command(name = "peek", mixinStandardHelpOptions = true,
    description = {"List a topic's pending messages in due order (ties in publish order), one page at a time.",
        "When more follow, the last line names the --page-token of the next page."})
final class PeekCommand extends BrokerCommand {
  @Option(names = "--topic", required = true, paramLabel = "TOPIC", description = "Topic to look into.")
  String topic;

  @Option(names = "--from", paramLabel = "INSTANT", description = "Only messages due at or after this instant.")
  Instant from;

  @Option(names = "--to", paramLabel = "INSTANT", description = "Only messages due at or before this instant.")
  Instant to;

  @Option(names = "--limit", paramLabel = "N", defaultValue = "100", description = "Page size, 1 to 1000 "
      + "(default: ${DEFAULT-VALUE}).")
  int limit;

  @Option(names = "--page-token", paramLabel = "TOKEN", description = "The token the previous page printed.")
  String pageToken;

  @Option(names = "--payload", description = "Show payloads too (a page then stops at 4 MiB of them).")
  boolean payload;

  @Option(names = "--json", description = "Print one JSON object: messages and next_page_token.")
  boolean json;

  @Override
  void prepare() {
    if (limit < 1 || limit > 1000) {
      throw new ParameterException(spec.commandLine(), "--limit must be 1 to 1000, got " + limit);
    }
  }

  @Override
  int run(FutureQClient client) throws InterruptedException {
    ListMessagesRequest.Builder request = ListMessagesRequest.newBuilder().setTopic(topic).setPageSize(limit)
        .setIncludePayload(payload);
    if (from != null) {
      request.setFromUnixMs(Math.max(0, from.toEpochMilli()));
    }
    if (to != null) {
      request.setToUnixMs(Math.max(1, to.toEpochMilli()));
    }
    if (pageToken != null) {
      request.setPageToken(pageToken);
    }
    ListMessagesResponse page = server.await(client.listMessages(request.build()));
    if (json) {
      ObjectNode reply = JsonNodeFactory.instance.objectNode();
      ArrayNode messages = reply.putArray("messages");
      page.getMessagesList().forEach(m -> messages.add(PendingMessages.json(m, payload)));
      out().println(reply.put("next_page_token", page.getNextPageToken()));
      return 0;
    }
    Table table = payload ? new Table("", "ID", "KEY", "DUE", "ENQUEUED", "SIZE", "HEADERS", "PAYLOAD")
        : new Table("", "ID", "KEY", "DUE", "ENQUEUED", "SIZE", "HEADERS");
    for (PendingMessage m : page.getMessagesList()) {
      Object[] row = {m.getMessageId(), m.getKey().isEmpty() ? "-" : m.getKey(), PendingMessages.due(m.getDueUnixMs()),
          PendingMessages.due(m.getEnqueuedUnixMs()), m.getSize(), PendingMessages.headers(m.getHeadersMap()),
          payload ? PendingMessages.payload(m) : null};
      table.row(payload ? row : Arrays.copyOf(row, 6));
    }
    table.print(out());
    if (!page.getNextPageToken().isEmpty()) {
      out().println("more: --page-token " + page.getNextPageToken());
    }
    return 0;
  }
}
