package io.futureq.cli;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.futureq.api.grpc.RescheduleMessageRequest;
import io.futureq.api.grpc.RescheduleMessageResponse;
import io.futureq.client.FutureQClient;
import java.time.Duration;
import java.time.Instant;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code futureq reschedule}: moves a pending message to a new due time. */
@Command(name = "reschedule", mixinStandardHelpOptions = true,
    description = {"Move a pending message, named by key or by message id, to a new due time (its TTL moves too).",
        "Its id changes: prints 'rescheduled <new id> due <instant> (was <old id>)'.",
        "A message that is not pending fails with NOT_FOUND, exit 1."})
final class RescheduleCommand extends BrokerCommand {
  @Option(names = "--topic", required = true, paramLabel = "TOPIC", description = "Topic of the message.")
  String topic;

  @ArgGroup(exclusive = true, multiplicity = "1")
  MessageTarget target;

  @ArgGroup(exclusive = true, multiplicity = "1")
  NewDue due;

  @Option(names = "--json", description = "Print one JSON object.")
  boolean json;

  /** The new due time: exactly one of these. */
  static final class NewDue {
    @Option(names = "--delay", paramLabel = "DURATION", converter = DurationConverter.class,
        description = "Due this long from now, e.g. " + DurationConverter.EXAMPLES
            + " (the configuration's duration grammar).")
    Duration delay;

    @Option(names = "--at", paramLabel = "INSTANT", converter = InstantConverter.class,
        description = "Due at this ISO-8601 instant, e.g. 2026-12-01T10:00:00Z or 2026-12-01T11:00:00+01:00.")
    Instant at;

    @Option(names = "--now", description = "Due now: deliver it at once.")
    boolean now;
  }

  @Override
  int run(FutureQClient client) throws InterruptedException {
    RescheduleMessageRequest.Builder request = RescheduleMessageRequest.newBuilder().setTopic(topic);
    if (target.key != null) {
      request.setKey(target.key);
    } else {
      request.setMessageId(target.id);
    }
    if (due.delay != null) {
      request.setDelayMs(due.delay.toMillis());
    } else if (due.at != null) {
      request.setDeliverAtUnixMs(Math.max(0, due.at.toEpochMilli()));
    }
    RescheduleMessageResponse moved = server.await(client.reschedule(request.build()));
    if (json) {
      out().println(JsonNodeFactory.instance.objectNode().put("message_id", moved.getMessageId())
          .put("previous_message_id", moved.getPreviousMessageId()).put("due_at_unix_ms", moved.getDueUnixMs()));
    } else {
      out().println("rescheduled " + moved.getMessageId() + " due " + PendingMessages.due(moved.getDueUnixMs())
          + " (was " + moved.getPreviousMessageId() + ")");
    }
    return 0;
  }
}
