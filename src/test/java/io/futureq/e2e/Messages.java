package io.futureq.e2e;

import com.google.protobuf.ByteString;
import io.futureq.api.grpc.AckLevel;
import io.futureq.api.grpc.Message;
import io.futureq.api.grpc.PublishRequest;
import java.util.UUID;

/** Builders for publish requests in tests. */
final class Messages {
  private Messages() {}

  static Message.Builder message(String topic, String payload, long delayMs) {
    return Message.newBuilder().setTopic(topic).setPayload(ByteString.copyFromUtf8(payload)).setDelayMs(delayMs);
  }

  static PublishRequest request(Message.Builder... messages) {
    PublishRequest.Builder request = PublishRequest.newBuilder().setRequestId(UUID.randomUUID().toString())
        .setAckLevel(AckLevel.ACK_LEVEL_QUORUM);
    for (Message.Builder m : messages) {
      request.addMessages(m);
    }
    return request.build();
  }
}
