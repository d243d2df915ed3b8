package io.futureq.serialization;

/** Marker for messages that cross nodes; bound to jackson-cbor in conf/futureq.conf. */
public interface CborSerializable {}
