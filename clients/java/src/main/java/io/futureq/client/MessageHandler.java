package io.futureq.client;

/** Receives deliveries of a subscription, one at a time, on the consumer's own thread. */
@FunctionalInterface
public interface MessageHandler {
  void handle(ReceivedMessage message) throws Exception;
}
