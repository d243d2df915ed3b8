package io.futureq.api;

import com.google.protobuf.InvalidProtocolBufferException;
import io.futureq.log.Failures;
import io.futureq.log.LogClosedException;
import io.futureq.log.LogOverloadedException;
import io.futureq.log.LogRejectedException;
import io.futureq.log.LogUnavailableException;
import io.futureq.security.NotAuthenticated;
import io.futureq.security.PermissionDenied;
import io.futureq.security.RateLimited;
import io.futureq.storage.StorageException;
import io.grpc.Status;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.grpc.GrpcServiceException;
import org.apache.pekko.grpc.Trailers;
import org.apache.pekko.grpc.javadsl.GrpcExceptionHandler;
import org.apache.pekko.japi.Function;
import org.apache.pekko.pattern.StatusReply;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The one map from failures to gRPC statuses. Anything unexpected is INTERNAL and logged once. */
final class GrpcErrors {
  private static final Logger LOG = LoggerFactory.getLogger(GrpcErrors.class);

  private GrpcErrors() {}

  static Status toStatus(Throwable failure) {
    Throwable t = Failures.cause(failure);
    if (t instanceof GrpcServiceException g) {
      return g.getStatus();
    }
    if (t instanceof InvalidProtocolBufferException) {
      return Status.INVALID_ARGUMENT.withDescription("malformed protobuf message: " + t.getMessage());
    }
    if (t instanceof NotAuthenticated) {
      return Status.UNAUTHENTICATED.withDescription(NotAuthenticated.MESSAGE);
    }
    if (t instanceof PermissionDenied) {
      return Status.PERMISSION_DENIED.withDescription(t.getMessage());
    }
    if (t instanceof RateLimited) {
      return Status.RESOURCE_EXHAUSTED.withDescription(t.getMessage());
    }
    if (t instanceof InvalidRequest r) {
      return Status.fromCode(r.code()).withDescription(r.getMessage());
    }
    if (t instanceof StorageException && String.valueOf(t.getMessage()).contains("No space left")) {
      return Status.RESOURCE_EXHAUSTED.withDescription("the broker's disk is full: " + t.getMessage());
    }
    if (t instanceof LogOverloadedException) {
      return Status.RESOURCE_EXHAUSTED.withDescription(t.getMessage());
    }
    if (t instanceof LogRejectedException) {
      return Status.FAILED_PRECONDITION.withDescription(t.getMessage());
    }
    if (t instanceof StorageException || t instanceof LogClosedException || t instanceof LogUnavailableException) {
      return Status.UNAVAILABLE.withDescription(t.getMessage());
    }
    if (t instanceof TimeoutException) {
      return Status.DEADLINE_EXCEEDED.withDescription("the broker did not finish in time: " + t.getMessage()
          + "; a publish may still complete, so retry with a key");
    }
    if (t instanceof StatusReply.ErrorMessage) {
      return Status.UNAVAILABLE.withDescription(t.getMessage());
    }
    LOG.error("unexpected failure answering a request", t);
    return Status.INTERNAL.withDescription("internal error: " + t.getClass().getSimpleName());
  }

  /** For pekko-grpc's handlers: failures before our code runs (decoding) get the same mapping. */
  static Function<ActorSystem, Function<Throwable, Trailers>> handler() {
    var pekkoDefault = GrpcExceptionHandler.defaultMapper();
    return system -> {
      var fallback = pekkoDefault.apply(system);
      return failure -> ours(Failures.cause(failure)) ? Trailers.apply(toStatus(failure))
          : fallback.apply(failure);
    };
  }

  /** Failures this map knows; others (unknown method, ...) keep pekko-grpc's own statuses. */
  private static boolean ours(Throwable t) {
    return t instanceof InvalidProtocolBufferException || t instanceof InvalidRequest
        || t instanceof GrpcServiceException || t instanceof StorageException || t instanceof LogClosedException
        || t instanceof LogUnavailableException || t instanceof LogOverloadedException
        || t instanceof LogRejectedException || t instanceof NotAuthenticated || t instanceof PermissionDenied
        || t instanceof RateLimited
        || t instanceof TimeoutException || t instanceof StatusReply.ErrorMessage;
  }

  static GrpcServiceException toException(Throwable failure) {
    return new GrpcServiceException(toStatus(failure));
  }

  /** The same outcome, failing with the status-carrying exception pekko-grpc sends to the client. */
  static <T> CompletionStage<T> translate(CompletionStage<T> stage) {
    CompletableFuture<T> out = new CompletableFuture<>();
    stage.whenComplete((value, failure) -> {
      if (failure == null) {
        out.complete(value);
      } else {
        out.completeExceptionally(toException(failure));
      }
    });
    return out;
  }
}
