package io.futureq.client;

import com.google.protobuf.ByteString;
import io.futureq.api.grpc.Message;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A message to publish: topic and payload, due after a delay or at an instant, with an optional
 * TTL, idempotency key and headers.
 *
 * <pre>{@code
 * OutgoingMessage.to("orders.cancel").payload("order-42").delay(Duration.ofMinutes(30)).key("order-42").build();
 * }</pre>
 */
public final class OutgoingMessage {
  private final Message proto;

  private OutgoingMessage(Message proto) {
    this.proto = proto;
  }

  public static Builder to(String topic) {
    return new Builder(topic);
  }

  public String topic() {
    return proto.getTopic();
  }

  Message toProto() {
    return proto;
  }

  int sizeBytes() {
    return proto.getSerializedSize();
  }

  /** Builds an {@link OutgoingMessage}; due now unless a delay or due instant is set. */
  public static final class Builder {
    private final String topic;
    private ByteString payload = ByteString.EMPTY;
    private Duration delay;
    private Instant at;
    private Duration ttl = Duration.ZERO;
    private String key = "";
    /** Null until the first header: most messages have none, and an empty map still costs its proto map field. */
    private Map<String, String> headers;

    private Builder(String topic) {
      this.topic = Objects.requireNonNull(topic, "topic");
    }

    public Builder payload(byte[] bytes) {
      this.payload = ByteString.copyFrom(bytes);
      return this;
    }

    public Builder payload(String text) {
      this.payload = ByteString.copyFrom(text, StandardCharsets.UTF_8);
      return this;
    }

    public Builder delay(Duration delay) {
      this.delay = Objects.requireNonNull(delay, "delay");
      this.at = null;
      return this;
    }

    public Builder at(Instant at) {
      this.at = Objects.requireNonNull(at, "at");
      this.delay = null;
      return this;
    }

    public Builder ttl(Duration ttl) {
      this.ttl = Objects.requireNonNull(ttl, "ttl");
      return this;
    }

    /** An idempotency key: while a message with it is pending, sending it again is a no-op. */
    public Builder key(String key) {
      this.key = Objects.requireNonNull(key, "key");
      return this;
    }

    public Builder header(String name, String value) {
      if (headers == null) {
        headers = new LinkedHashMap<>();
      }
      headers.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
      return this;
    }

    public OutgoingMessage build() {
      Message.Builder m = Message.newBuilder().setTopic(topic).setPayload(payload).setTtlMs(ttl.toMillis())
          .setKey(key);
      if (headers != null) {
        m.putAllHeaders(headers);
      }
      if (delay != null) {
        m.setDelayMs(delay.toMillis());
      } else if (at != null) {
        m.setDeliverAtUnixMs(at.toEpochMilli());
      }
      return new OutgoingMessage(m.build());
    }
  }
}
