package io.futureq.group;

/**
 * One message handed to one consumer: the tag it is acked by (numbered per stream) and its attempt
 * (1 on the first delivery).
 */
public record GroupDelivery(long tag, int attempt, DueMessage message) {}
