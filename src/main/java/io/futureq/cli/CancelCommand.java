package io.futureq.cli;

import io.futureq.api.grpc.CancelResponse;
import io.futureq.client.FutureQClient;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code futureq cancel}: removes one pending message, named by key or by id. */
@Command(name = "cancel", mixinStandardHelpOptions = true,
    description = {"Cancel a pending message by key or by message id.",
        "Prints 'cancelled <id>' and exits 0, or prints 'not found' and exits 3 (1 is a failure: the broker",
        "unreachable or refusing; 2 a bad flag)."})
final class CancelCommand extends BrokerCommand {
  /** Its own status: a script must tell "nothing to cancel" from "could not ask" (1). */
  static final int NOT_FOUND = 3;

  @Option(names = "--topic", required = true, paramLabel = "TOPIC", description = "Topic of the message.")
  String topic;

  @ArgGroup(exclusive = true, multiplicity = "1")
  Target target;

  /** Which message: exactly one of these. */
  static final class Target {
    @Option(names = "--key", paramLabel = "KEY", description = "The idempotency key it was published with.")
    String key;

    @Option(names = "--id", paramLabel = "ID", description = "The message id its publish printed.")
    String id;
  }

  @Override
  int run(FutureQClient client) throws InterruptedException {
    CancelResponse response = server.await(target.key != null ? client.cancelByKey(topic, target.key)
        : client.cancelById(topic, target.id));
    if (!response.getExisted()) {
      out().println("not found");
      return NOT_FOUND;
    }
    out().println("cancelled " + response.getMessageId());
    return 0;
  }
}
