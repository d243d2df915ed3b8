package io.futureq.group;

/** A due message waiting for delivery, with the deliveries it has had so far. */
record Pending(DueMessage message, int deliveries) {}
