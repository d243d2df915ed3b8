package io.futureq.client;

import io.grpc.Status;

/** Over a limit for now (RESOURCE_EXHAUSTED): the broker is shedding load, or the producer has as many sends in flight as {@link ProducerOptions} allows. Retry later. */
public final class RejectedException extends FutureQException {
  RejectedException(String message) {
    super(Status.Code.RESOURCE_EXHAUSTED, message);
  }
}
