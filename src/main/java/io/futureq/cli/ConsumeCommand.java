package io.futureq.cli;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.futureq.client.ConsumerOptions;
import io.futureq.client.FutureQClient;
import io.futureq.client.FutureQConsumer;
import io.futureq.client.FutureQException;
import io.futureq.client.ReceivedMessage;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** {@code futureq consume}: prints and acks deliveries, one line each, until --count is reached or interrupted. */
@Command(name = "consume", mixinStandardHelpOptions = true,
    description = {"Print each delivery on one line, then ack it.",
        "A text payload is printed with backslash, line breaks, tabs, other control characters escaped (\\\\, \\n, "
            + "\\r, \\t, \\uXXXX): one delivery, a line.",
        "Without --group, subscribes as a universal consumer: it sees only messages that become due while it "
            + "is connected."})
final class ConsumeCommand extends BrokerCommand {
  private static final int DEFAULT_MAX_IN_FLIGHT = 100;

  @Option(names = "--topic", required = true, paramLabel = "TOPIC", description = "Topic to consume.")
  String topic;

  @Option(names = "--group", paramLabel = "GROUP", defaultValue = "", description = "Durable consumer group.")
  String group;

  @Option(names = "--count", paramLabel = "N", description = "Exit after N deliveries (default: run until "
      + "interrupted).")
  Integer count;

  @Option(names = "--max-in-flight", paramLabel = "N",
      description = "Deliveries held unacked at once (default: " + DEFAULT_MAX_IN_FLIGHT + ", at most --count).")
  Integer maxInFlight;

  @Option(names = "--json", description = "One JSON object per delivery; payload_b64 replaces payload when the "
      + "payload is not UTF-8.")
  boolean json;

  /** Deliveries printed; touched only by the consumer's single handler thread. */
  private int printed;

  @Override
  void prepare() {
    if (count != null && count < 1) {
      throw new ParameterException(spec.commandLine(), "--count must be at least 1, got " + count);
    }
    if (maxInFlight != null && maxInFlight < 1) {
      throw new ParameterException(spec.commandLine(), "--max-in-flight must be at least 1, got " + maxInFlight);
    }
  }

  @Override
  int run(FutureQClient client) throws InterruptedException {
    // A consumer resubscribes to an unreachable broker until it is closed; one admin call fails fast instead.
    server.await(client.clusterInfo());
    int credit = maxInFlight != null ? maxInFlight : count != null ? Math.min(DEFAULT_MAX_IN_FLIGHT, count)
        : DEFAULT_MAX_IN_FLIGHT;
    CompletableFuture<Void> done = new CompletableFuture<>();
    FutureQConsumer consumer = client.subscribe(topic, group, m -> onDelivery(m, done),
        ConsumerOptions.defaults().withManualAck().withMaxInFlight(credit));
    try {
      CompletableFuture.anyOf(done, consumer.terminated()).get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof FutureQException f ? f : new IllegalStateException(e.getCause());
    }
    return 0;
  }

  private void onDelivery(ReceivedMessage m, CompletableFuture<Void> done) {
    if (done.isDone()) {
      return; // beyond --count: left unacked, so the broker delivers it again to the group
    }
    PrintWriter out = out();
    out.println(json ? json(m) : text(m));
    out.flush();
    m.ack();
    if ((count != null && ++printed >= count) || out.checkError()) {
      done.complete(null);
    }
  }

  static String text(ReceivedMessage m) {
    String payload = utf8(m.payload());
    return m.messageId() + " attempt=" + m.attempt() + " key=" + m.key() + " due="
        + Instant.ofEpochMilli(m.dueAtUnixMs()) + (payload != null ? " payload=" + escaped(payload)
        : " payload_b64=" + Base64.getEncoder().encodeToString(m.payload()));
  }

  static String json(ReceivedMessage m) {
    ObjectNode out = JsonNodeFactory.instance.objectNode().put("message_id", m.messageId()).put("topic", m.topic())
        .put("group", m.group()).put("key", m.key()).put("attempt", m.attempt()).put("due_at_unix_ms", m.dueAtUnixMs())
        .put("enqueued_at_unix_ms", m.enqueuedAtUnixMs()).put("received_at_unix_ms", m.receivedAtUnixMs());
    m.headers().forEach(out.putObject("headers")::put);
    String payload = utf8(m.payload());
    return (payload != null ? out.put("payload", payload)
        : out.put("payload_b64", Base64.getEncoder().encodeToString(m.payload()))).toString();
  }

  /** {@code text} on one line: backslash and control characters escaped as in Java and JSON strings. */
  static String escaped(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (Character.isISOControl(c)) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.toString();
  }

  /** The payload as text, or null when it is not valid UTF-8. */
  static String utf8(byte[] bytes) {
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }
}
