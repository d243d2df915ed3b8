package io.futureq.client;

import io.grpc.Status;

/** No broker answered, or the one asked is starting, stopping or not yet part of its cluster (UNAVAILABLE). Worth retrying: the client has already tried every broker it knows. */
public final class BrokerUnavailableException extends FutureQException {
  BrokerUnavailableException(String message) {
    super(Status.Code.UNAVAILABLE, message);
  }
}
