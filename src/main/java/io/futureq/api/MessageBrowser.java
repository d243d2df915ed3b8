package io.futureq.api;

import com.google.protobuf.InvalidProtocolBufferException;
import io.futureq.api.grpc.GetMessageRequest;
import io.futureq.api.grpc.ListMessagesRequest;
import io.futureq.api.grpc.ListMessagesResponse;
import io.futureq.api.grpc.PendingMessage;
import io.futureq.log.Headers;
import io.futureq.log.LogShards;
import io.futureq.log.proto.StoredMessage;
import io.futureq.storage.MessageIds;
import io.futureq.storage.OrderedStore;
import io.futureq.storage.OrderedStore.Space;
import io.futureq.storage.StorageKeys;
import io.grpc.Status;
import java.util.Arrays;

/**
 * Reads pending messages from this node's store: a topic's messages in due order within a window, a page at a
 * time, or one by key or id. Blocking: run on the storage executor. A page reads at most its size in messages.
 */
final class MessageBrowser {
  static final int DEFAULT_PAGE_SIZE = 100;
  static final int MAX_PAGE_SIZE = 1_000;
  /** A page with payloads stops once it holds this many payload bytes (one message at least). */
  static final long MAX_PAGE_PAYLOAD_BYTES = 4L << 20;

  private final LogShards shards;

  /** Reads each topic from its log shard's store. */
  MessageBrowser(LogShards shards) {
    this.shards = shards;
  }

  /** Checks a list request before any read. */
  void validate(ListMessagesRequest in) {
    RequestValidator.topic("topic", in.getTopic());
    if (in.getFromUnixMs() < 0) {
      throw InvalidRequest.invalid("from_unix_ms: must not be negative, got " + in.getFromUnixMs());
    }
    if (in.getToUnixMs() < 0 || (in.getToUnixMs() != 0 && in.getToUnixMs() < in.getFromUnixMs())) {
      throw InvalidRequest.invalid("to_unix_ms: must be 0 (no end) or at least from_unix_ms (" + in.getFromUnixMs()
          + "), got " + in.getToUnixMs());
    }
    if (Integer.toUnsignedLong(in.getPageSize()) > MAX_PAGE_SIZE) {
      throw InvalidRequest.invalid("page_size: " + Integer.toUnsignedString(in.getPageSize())
          + " is more than the limit of " + MAX_PAGE_SIZE);
    }
    if (!in.getPageToken().isEmpty()) {
      storageKey(in.getTopic(), in.getPageToken(), "page_token");
    }
    requireTopic(in.getTopic());
  }

  ListMessagesResponse list(ListMessagesRequest in) {
    String topic = in.getTopic();
    long hash = StorageKeys.topicHash(topic);
    long bucketMs = shards.bucketMs();
    int size = in.getPageSize() == 0 ? DEFAULT_PAGE_SIZE : in.getPageSize();
    long to = in.getToUnixMs() == 0 ? Long.MAX_VALUE : in.getToUnixMs();
    byte[] from = StorageKeys.messageRangeStart(hash, in.getFromUnixMs() / bucketMs);
    if (!in.getPageToken().isEmpty()) {
      // The smallest key after the token's, so the next page starts right behind the last one.
      byte[] after = Arrays.copyOf(storageKey(topic, in.getPageToken(), "page_token"),
          StorageKeys.MESSAGE_KEY_LENGTH + 1);
      from = Arrays.compareUnsigned(after, from) > 0 ? after : from;
    }
    byte[] end = to == Long.MAX_VALUE ? StorageKeys.messageRangeEnd(hash)
        : StorageKeys.messageRangeStart(hash, to / bucketMs + 1);
    ListMessagesResponse.Builder out = ListMessagesResponse.newBuilder();
    long payloadBytes = 0;
    byte[] last = null;
    boolean more = false;
    try (OrderedStore.View view = shards.of(topic).store().view();
        OrderedStore.RangeIterator it = view.range(Space.MESSAGES, from, end)) {
      for (; it.valid(); it.next()) {
        StoredMessage m = parse(it.value());
        if (!m.getTopic().equals(topic) || m.getDueMs() < in.getFromUnixMs() || m.getDueMs() > to) {
          continue;
        }
        if (out.getMessagesCount() == size || (in.getIncludePayload() && payloadBytes > 0
            && payloadBytes + m.getPayload().size() > MAX_PAGE_PAYLOAD_BYTES)) {
          more = true;
          break;
        }
        out.addMessages(describe(it.key(), m, in.getIncludePayload()));
        payloadBytes += m.getPayload().size();
        last = it.key();
      }
    }
    return more ? out.setNextPageToken(MessageIds.of(last)).build() : out.build();
  }

  /** Checks a get request before any read. */
  void validate(GetMessageRequest in) {
    RequestValidator.topic("topic", in.getTopic());
    switch (in.getTargetCase()) {
      case KEY:
        if (in.getKey().isEmpty()) {
          throw InvalidRequest.invalid("key: must not be empty");
        }
        break;
      case MESSAGE_ID:
        storageKey(in.getTopic(), in.getMessageId());
        break;
      default:
        throw InvalidRequest.invalid("target: set key or message_id");
    }
    requireTopic(in.getTopic());
  }

  PendingMessage get(GetMessageRequest in) {
    try (OrderedStore.View view = shards.of(in.getTopic()).store().view()) {
      byte[] key = in.getTargetCase() == GetMessageRequest.TargetCase.KEY
          ? view.get(Space.INDEX, StorageKeys.messageKeyIndex(in.getTopic(), in.getKey()))
          : storageKey(in.getTopic(), in.getMessageId());
      byte[] value = key == null ? null : view.get(Space.MESSAGES, key);
      StoredMessage m = value == null ? null : parse(value);
      if (m == null || !m.getTopic().equals(in.getTopic())) {
        throw new InvalidRequest(Status.Code.NOT_FOUND, target(in.getTargetCase().name(), in.getKey(),
            in.getMessageId()) + ": no pending message on topic " + in.getTopic());
      }
      return describe(key, m, in.getIncludePayload());
    }
  }

  /** Names what was looked for, as in "key 'order-7'" or "message_id 0000...". */
  static String target(String targetCase, String key, String messageId) {
    return "KEY".equals(targetCase) ? "key '" + key + "'" : "message_id " + messageId;
  }

  static byte[] storageKey(String topic, String messageId) {
    return storageKey(topic, messageId, "message_id");
  }

  private static byte[] storageKey(String topic, String messageId, String field) {
    try {
      return MessageIds.storageKey(topic, messageId);
    } catch (IllegalArgumentException e) {
      throw InvalidRequest.invalid(field + ": " + e.getMessage());
    }
  }

  private void requireTopic(String topic) {
    if (!shards.knowsTopic(topic)) {
      throw TopicAdmin.notFound(topic);
    }
  }

  private static PendingMessage describe(byte[] key, StoredMessage m, boolean withPayload) {
    PendingMessage.Builder out = PendingMessage.newBuilder().setMessageId(MessageIds.of(key)).setKey(m.getKey())
        .setDueUnixMs(m.getDueMs()).setEnqueuedUnixMs(m.getEnqueuedMs()).setSize(m.getPayload().size())
        .setExpireUnixMs(m.getExpireMs());
    Headers.putAll(m.getHeadersList(), out::putHeaders);
    return withPayload ? out.setPayload(m.getPayload()).build() : out.build();
  }

  private static StoredMessage parse(byte[] value) {
    try {
      return StoredMessage.parseFrom(value);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("corrupt message record", e);
    }
  }
}
