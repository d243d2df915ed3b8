package io.futureq.cli;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.futureq.api.grpc.PendingMessage;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** How the CLI shows a pending message: one JSON object, or text fields. */
final class PendingMessages {
  private PendingMessages() {}

  static ObjectNode json(PendingMessage m, boolean withPayload) {
    ObjectNode out = JsonNodeFactory.instance.objectNode().put("message_id", m.getMessageId()).put("key", m.getKey())
        .put("due_at_unix_ms", m.getDueUnixMs()).put("enqueued_at_unix_ms", m.getEnqueuedUnixMs())
        .put("expire_at_unix_ms", m.getExpireUnixMs()).put("size", m.getSize());
    m.getHeadersMap().forEach(out.putObject("headers")::put);
    if (!withPayload) {
      return out;
    }
    String payload = ConsumeCommand.utf8(m.getPayload().toByteArray());
    return payload != null ? out.put("payload", payload)
        : out.put("payload_b64", Base64.getEncoder().encodeToString(m.getPayload().toByteArray()));
  }

  static String due(long unixMs) {
    return Instant.ofEpochMilli(unixMs).toString();
  }

  static String headers(Map<String, String> headers) {
    return headers.isEmpty() ? "-" : new TreeMap<>(headers).entrySet().stream()
        .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(","));
  }

  /** The payload as text, quoted so that a newline cannot start a fake line; base64 when not UTF-8. */
  static String payload(PendingMessage m) {
    String text = ConsumeCommand.utf8(m.getPayload().toByteArray());
    return text != null ? TextNode.valueOf(text).toString()
        : "base64:" + Base64.getEncoder().encodeToString(m.getPayload().toByteArray());
  }
}
