package io.futureq.api;

import io.futureq.api.grpc.Message;
import io.futureq.api.grpc.PublishRequest;
import io.futureq.api.grpc.SubscribeInit;
import io.futureq.config.AckLevel;
import io.futureq.config.ApiSettings;
import io.futureq.log.BrokerStateMachine;
import io.futureq.log.Headers;
import io.futureq.log.proto.LogCommand;
import io.futureq.log.proto.NewMessage;
import io.futureq.log.proto.StoreBatch;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** Checks requests against the limits in {@code futureq.api}; throws {@link InvalidRequest}. */
final class RequestValidator {
  static final int MAX_NAME_LENGTH = 249;
  /** A topic of the longest name gets a dead-letter topic this long, which must stay readable. */
  static final int MAX_DEAD_LETTER_TOPIC_LENGTH = MAX_NAME_LENGTH + BrokerStateMachine.DEAD_LETTER_SUFFIX.length();

  private final ApiSettings settings;

  RequestValidator(ApiSettings settings) {
    this.settings = settings;
  }

  /** Topic and group names: 1-249 characters of [A-Za-z0-9._-]. */
  static void name(String field, String value) {
    if (value.isEmpty()) {
      throw InvalidRequest.invalid(field + ": must not be empty");
    }
    if (value.length() > MAX_NAME_LENGTH) {
      throw InvalidRequest.invalid(field + ": " + value.length() + " characters, more than " + MAX_NAME_LENGTH);
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || c == '.' || c == '_' || c == '-';
      if (!ok) {
        throw InvalidRequest.invalid(field + ": character '" + c + "' at position " + i
            + " is not allowed (use A-Z, a-z, 0-9, '.', '_', '-')");
      }
    }
  }

  /**
   * Topic names: as {@link #name}, except that a name ending in the dead-letter suffix may have the
   * suffix beyond 249 characters (up to 261), so the dead-letter topic of every topic can be read.
   */
  static void topic(String field, String value) {
    String suffix = BrokerStateMachine.DEAD_LETTER_SUFFIX;
    if (value.length() <= MAX_NAME_LENGTH || !value.endsWith(suffix)) {
      name(field, value);
      return;
    }
    if (value.length() > MAX_DEAD_LETTER_TOPIC_LENGTH) {
      throw InvalidRequest.invalid(field + ": " + value.length() + " characters, more than "
          + MAX_DEAD_LETTER_TOPIC_LENGTH + " for a dead-letter topic (" + MAX_NAME_LENGTH + " before '" + suffix
          + "')");
    }
    name(field, value.substring(0, value.length() - suffix.length()));
  }

  AckLevel ackLevel(PublishRequest request) {
    AckLevel level;
    switch (request.getAckLevel()) {
      case ACK_LEVEL_UNSPECIFIED:
      case ACK_LEVEL_QUORUM:
        level = AckLevel.QUORUM;
        break;
      case ACK_LEVEL_LEADER:
        level = AckLevel.LEADER;
        break;
      case ACK_LEVEL_NONE:
        level = AckLevel.NONE;
        break;
      default:
        throw InvalidRequest.invalid("ack_level: unknown value " + request.getAckLevelValue());
    }
    if (level.compareTo(settings.minAckLevel()) < 0) {
      throw InvalidRequest.invalid("ack_level: " + level + " is below the broker minimum "
          + settings.minAckLevel() + " (futureq.api.min-ack-level)");
    }
    return level;
  }

  /** Validates a whole publish request and turns it into one log command, or rejects it whole. */
  LogCommand publish(PublishRequest request, long nowMs, long bucketMs) {
    int count = request.getMessagesCount();
    if (count == 0) {
      throw InvalidRequest.invalid("messages: must not be empty");
    }
    if (count > settings.maxBatchMessages()) {
      throw InvalidRequest.tooLarge("messages: " + count + " messages, more than the limit of "
          + settings.maxBatchMessages() + " (futureq.api.max-batch-messages)");
    }
    StoreBatch.Builder batch = StoreBatch.newBuilder().setEnqueuedMs(nowMs).setBucketMs(bucketMs);
    long bytes = 0;
    // A request nearly always names one topic: a topic equal to the previous message's passed the check already.
    String validTopic = null;
    for (int i = 0; i < count; i++) {
      Message m = request.getMessages(i);
      String topic = m.getTopic();
      if (!topic.equals(validTopic)) {
        topic(field(i) + ".topic", topic);
        validTopic = topic;
      }
      // Read once: on a message without headers, each read of the map allocates an empty one.
      int headers = m.getHeadersCount();
      batch.addMessages(message(m, validTopic, i, headers, nowMs));
      bytes += m.getPayload().size() + m.getKey().length();
      if (headers > 0) {
        for (Map.Entry<String, String> h : m.getHeadersMap().entrySet()) {
          bytes += h.getKey().length() + h.getValue().length();
        }
      }
    }
    if (bytes > settings.maxBatchBytes()) {
      throw InvalidRequest.tooLarge("messages: " + bytes + " bytes in all, more than the limit of "
          + settings.maxBatchBytes() + " (futureq.api.max-batch-size)");
    }
    return LogCommand.newBuilder().setStore(batch).build();
  }

  /** The name of message {@code index} in refusals; built only for one, not for every message. */
  private static String field(int index) {
    return "messages[" + index + "]";
  }

  /**
   * Checks all but the topic, which {@link #publish} checks; {@code topic} is the message's, as one instance for the
   * request's messages of that topic, so that the apply compares them by reference.
   */
  private NewMessage message(Message m, String topic, int index, int headers, long nowMs) {
    if (m.getPayload().size() > settings.maxPayloadBytes()) {
      throw InvalidRequest.tooLarge(field(index) + ".payload: " + m.getPayload().size()
          + " bytes, more than the limit of " + settings.maxPayloadBytes() + " (futureq.api.max-payload-size)");
    }
    long dueMs = dueMs(m, index, nowMs);
    if (m.getTtlMs() < 0) {
      throw InvalidRequest.invalid(field(index) + ".ttl_ms: must not be negative, got " + m.getTtlMs());
    }
    if (m.getTtlMs() > settings.maxTtl().toMillis()) {
      throw InvalidRequest.invalid(field(index) + ".ttl_ms: " + m.getTtlMs() + " exceeds the maximum of "
          + settings.maxTtl().toMillis() + " (futureq.api.max-ttl)");
    }
    String key = m.getKey();
    // No UTF-16 char takes more than 3 UTF-8 bytes: only a key that might be too long is encoded to count them.
    if ((long) key.length() * 3 > settings.maxKeyBytes()) {
      int keyBytes = key.getBytes(StandardCharsets.UTF_8).length;
      if (keyBytes > settings.maxKeyBytes()) {
        throw InvalidRequest.invalid(field(index) + ".key: " + keyBytes + " bytes, more than the limit of "
            + settings.maxKeyBytes() + " (futureq.api.max-key-length)");
      }
    }
    if (headers > settings.maxHeaders()) {
      throw InvalidRequest.invalid(field(index) + ".headers: " + headers + " headers, more than the limit of "
          + settings.maxHeaders() + " (futureq.api.max-headers)");
    }
    if (headers > 0) {
      headerBytes(m, index);
    }
    NewMessage.Builder out = NewMessage.newBuilder().setTopic(topic).setPayload(m.getPayload())
        .setKey(key).setDueMs(dueMs).setExpireMs(m.getTtlMs() == 0 ? 0 : dueMs + m.getTtlMs());
    if (headers > 0) {
      Headers.addAll(m.getHeadersMap(), out::addHeaders);
    }
    return out.build();
  }

  /**
   * A message's header names and values in UTF-8 bytes against their limit: {@code max-headers} counts headers, so
   * without this one header could be as large as the whole request.
   */
  private void headerBytes(Message m, int index) {
    long bytes = 0;
    for (Map.Entry<String, String> h : m.getHeadersMap().entrySet()) {
      bytes += utf8Length(h.getKey()) + utf8Length(h.getValue());
    }
    if (bytes > settings.maxHeaderBytes()) {
      throw InvalidRequest.invalid(field(index) + ".headers: " + bytes + " bytes of names and values, more than "
          + "the limit of " + settings.maxHeaderBytes() + " (futureq.api.max-headers-size)");
    }
  }

  /** UTF-8 length without encoding: a surrogate pair is 4 bytes, so each half counts 2. */
  private static long utf8Length(String s) {
    long bytes = s.length();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c >= 0x80) {
        bytes += c < 0x800 || Character.isSurrogate(c) ? 1 : 2;
      }
    }
    return bytes;
  }

  /** The due time; one in the past means due now, so due times never precede acceptance. */
  private long dueMs(Message m, int index, long nowMs) {
    long delay;
    switch (m.getDueCase()) {
      case DELAY_MS:
        if (m.getDelayMs() < 0) {
          throw InvalidRequest.invalid(field(index) + ".delay_ms: must not be negative, got " + m.getDelayMs());
        }
        delay = m.getDelayMs();
        break;
      case DELIVER_AT_UNIX_MS:
        if (m.getDeliverAtUnixMs() < 0) {
          throw InvalidRequest.invalid(field(index) + ".deliver_at_unix_ms: must not be negative, got "
              + m.getDeliverAtUnixMs());
        }
        delay = Math.max(0, m.getDeliverAtUnixMs() - nowMs);
        break;
      default:
        delay = 0;
    }
    if (delay > settings.maxDelay().toMillis()) {
      throw InvalidRequest.invalid(field(index) + "." + (m.getDueCase() == Message.DueCase.DELIVER_AT_UNIX_MS
          ? "deliver_at_unix_ms" : "delay_ms") + ": due " + delay + "ms from now, beyond the maximum delay of "
          + settings.maxDelay().toMillis() + "ms (futureq.api.max-delay)");
    }
    return nowMs + delay;
  }

  /** Validates an init frame and returns the effective max in flight. */
  int subscribe(SubscribeInit init) {
    topic("init.topic", init.getTopic());
    if (!init.getGroup().isEmpty()) {
      name("init.group", init.getGroup());
    }
    int max = init.getMaxInFlight() == 0 ? settings.defaultMaxInFlight() : init.getMaxInFlight();
    if (max < 0 || max > settings.maxInFlight()) {
      throw InvalidRequest.tooLarge("init.max_in_flight: " + Integer.toUnsignedString(init.getMaxInFlight())
          + " is more than the limit of " + settings.maxInFlight() + " (futureq.api.max-in-flight)");
    }
    return max;
  }

  /** The effective max in flight bytes of an init frame (0 asks for the broker default). */
  long subscribeBytes(SubscribeInit init) {
    long bytes = init.getMaxInFlightBytes();
    if (bytes < 0) {
      throw InvalidRequest.invalid("init.max_in_flight_bytes: must not be negative (0 asks for the broker default, "
          + settings.defaultMaxInFlightBytes() + "), got " + bytes);
    }
    if (bytes > settings.maxInFlightBytes()) {
      throw InvalidRequest.tooLarge("init.max_in_flight_bytes: " + bytes + " is more than the limit of "
          + settings.maxInFlightBytes() + " (futureq.api.max-in-flight-bytes)");
    }
    return bytes == 0 ? settings.defaultMaxInFlightBytes() : bytes;
  }
}
