package io.futureq.client;

import io.futureq.api.grpc.Delivery;
import java.time.Duration;
import java.util.Map;

/** One delivery; ack it when done, or nack it to have it delivered again. */
public final class ReceivedMessage {
  private final Delivery delivery;
  private final String topic;
  private final String group;
  private final long receivedAtMs;
  private final SubscribeStream stream;

  ReceivedMessage(Delivery delivery, String topic, String group, long receivedAtMs, SubscribeStream stream) {
    this.delivery = delivery;
    this.topic = topic;
    this.group = group;
    this.receivedAtMs = receivedAtMs;
    this.stream = stream;
  }

  public String topic() {
    return topic;
  }

  public String messageId() {
    return delivery.getMessageId();
  }

  public String key() {
    return delivery.getKey();
  }

  public Map<String, String> headers() {
    return delivery.getHeadersMap();
  }

  public byte[] payload() {
    return delivery.getPayload().toByteArray();
  }

  public long dueAtUnixMs() {
    return delivery.getDueAtUnixMs();
  }

  public long enqueuedAtUnixMs() {
    return delivery.getEnqueuedAtUnixMs();
  }

  public long receivedAtUnixMs() {
    return receivedAtMs;
  }

  /** 1 on the first delivery. */
  public int attempt() {
    return delivery.getAttempt();
  }

  /** The group it was delivered to; empty for a universal subscriber. */
  public String group() {
    return group;
  }

  /** The tag acks name, numbered 1, 2, 3, ... on the stream that delivered it. */
  public long deliveryTag() {
    return delivery.getDeliveryTag();
  }

  SubscribeStream stream() {
    return stream;
  }

  /** Done with it: the broker will not deliver it to this group again. No-op if the stream was lost. */
  public void ack() {
    stream.ack(delivery.getDeliveryTag());
  }

  /** Deliver it again after {@code delay}. No-op if the stream was lost (it comes back anyway). */
  public void nack(Duration delay) {
    stream.nack(delivery.getDeliveryTag(), delay);
  }
}
