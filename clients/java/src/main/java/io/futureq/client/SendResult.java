package io.futureq.client;

/**
 * The broker's answer to one send.
 *
 * @param messageId the stored message's id; empty with {@code ACK_LEVEL_NONE}, which answers on receipt
 * @param duplicate true when the message's key was still pending on the topic: nothing new was stored,
 *     and {@code messageId} is the pending message's (its payload and due time are unchanged)
 */
public record SendResult(String messageId, boolean duplicate) {}
