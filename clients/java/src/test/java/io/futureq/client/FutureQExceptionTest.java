package io.futureq.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.grpc.Status;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** Each status code the broker answers with fails as the client's own exception for it, still giving the code. */
class FutureQExceptionTest {
  @Test
  void eachCodeHasItsSubclassAndKeepsItsCode() {
    assertIs(BrokerUnavailableException.class, Status.Code.UNAVAILABLE);
    assertIs(TimedOutException.class, Status.Code.DEADLINE_EXCEEDED);
    assertIs(InvalidRequestException.class, Status.Code.INVALID_ARGUMENT);
    assertIs(InvalidRequestException.class, Status.Code.FAILED_PRECONDITION);
    assertIs(InvalidRequestException.class, Status.Code.OUT_OF_RANGE);
    assertIs(InvalidRequestException.class, Status.Code.ALREADY_EXISTS);
    assertIs(RejectedException.class, Status.Code.RESOURCE_EXHAUSTED);
    assertIs(NotFoundException.class, Status.Code.NOT_FOUND);
    assertIs(PermissionDeniedException.class, Status.Code.UNAUTHENTICATED);
    assertIs(PermissionDeniedException.class, Status.Code.PERMISSION_DENIED);
    assertIs(FutureQException.class, Status.Code.CANCELLED);
    assertIs(FutureQException.class, Status.Code.INTERNAL);
  }

  @Test
  void grpcFailuresAndTimeoutsBecomeTheSubclass() {
    FutureQException notFound = FutureQException.from(new CompletionException(
        Status.NOT_FOUND.withDescription("no pending message with key 'k'").asRuntimeException()));
    assertInstanceOf(NotFoundException.class, notFound);
    assertEquals("NOT_FOUND: no pending message with key 'k'", notFound.getMessage());
    assertInstanceOf(TimedOutException.class, FutureQException.from(new TimeoutException()));
    FutureQException same = FutureQException.of(Status.Code.NOT_FOUND, "x");
    assertSame(same, FutureQException.from(new CompletionException(same)));
  }

  private static void assertIs(Class<? extends FutureQException> type, Status.Code code) {
    FutureQException e = FutureQException.of(code, "detail");
    assertEquals(type, e.getClass(), code.toString());
    assertEquals(code, e.code());
    assertEquals(code + ": detail", e.getMessage());
  }
}
