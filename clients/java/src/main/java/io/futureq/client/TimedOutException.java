package io.futureq.client;

import io.grpc.Status;

/** No answer within the request timeout, or a send not acknowledged within its delivery timeout (DEADLINE_EXCEEDED). The request may still have taken effect. */
public final class TimedOutException extends FutureQException {
  TimedOutException(String message) {
    super(Status.Code.DEADLINE_EXCEEDED, message);
  }
}
