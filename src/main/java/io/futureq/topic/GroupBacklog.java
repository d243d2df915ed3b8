package io.futureq.topic;

import io.futureq.serialization.CborSerializable;

/**
 * What a durable group still holds in storage: {@code lag} stored messages it has not acked (due or not), and the
 * age of the oldest due one it has not acked (0: none).
 */
public record GroupBacklog(String group, long lag, long oldestUnackedDueAgeMs) implements CborSerializable {}
