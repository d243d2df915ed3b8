package io.futureq.client;

/** Receives deliveries of a subscription on the consumer's handler threads (ConsumerOptions.handlerThreads). */
@FunctionalInterface
public interface MessageHandler {
  void handle(ReceivedMessage message) throws Exception;
}
