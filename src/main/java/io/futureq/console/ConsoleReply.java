package io.futureq.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.futureq.security.NotAuthenticated;
import io.futureq.security.PermissionDenied;
import io.grpc.Status;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.pekko.grpc.GrpcServiceException;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;

/** The console's JSON answers, and the one mapping of failures (the API's statuses) to HTTP statuses. */
final class ConsoleReply {
  static final ObjectMapper JSON = new ObjectMapper();

  private ConsoleReply() {}

  static ObjectNode object() {
    return JSON.createObjectNode();
  }

  static HttpResponse ok(JsonNode body) {
    return json(StatusCodes.OK, body);
  }

  static HttpResponse error(StatusCode status, String code, String message) {
    return json(status, object().put("code", code).put("error", message));
  }

  /** A failed call: the API's status, as HTTP (401, 403, 404, 400, 409, 429, 503, 504, else 500). */
  static HttpResponse failure(Throwable failure) {
    Throwable t = failure;
    while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
      t = t.getCause();
    }
    if (t instanceof NotAuthenticated) {
      return error(StatusCodes.UNAUTHORIZED, "UNAUTHENTICATED", t.getMessage());
    }
    if (t instanceof PermissionDenied) {
      return error(StatusCodes.FORBIDDEN, "PERMISSION_DENIED", t.getMessage());
    }
    if (t instanceof BadRequest) {
      return error(StatusCodes.BAD_REQUEST, "INVALID_ARGUMENT", t.getMessage());
    }
    if (t instanceof GrpcServiceException grpc) {
      Status status = grpc.status();
      return error(httpStatus(status.getCode()), status.getCode().name(), String.valueOf(status.getDescription()));
    }
    return error(StatusCodes.INTERNAL_SERVER_ERROR, "INTERNAL", "internal error: " + t.getClass().getSimpleName()
        + (t.getMessage() == null ? "" : ": " + t.getMessage()));
  }

  private static StatusCode httpStatus(Status.Code code) {
    return switch (code) {
      case UNAUTHENTICATED -> StatusCodes.UNAUTHORIZED;
      case PERMISSION_DENIED -> StatusCodes.FORBIDDEN;
      case NOT_FOUND -> StatusCodes.NOT_FOUND;
      case INVALID_ARGUMENT, OUT_OF_RANGE -> StatusCodes.BAD_REQUEST;
      case FAILED_PRECONDITION, ABORTED, ALREADY_EXISTS -> StatusCodes.CONFLICT;
      case RESOURCE_EXHAUSTED -> StatusCodes.TOO_MANY_REQUESTS;
      case UNAVAILABLE -> StatusCodes.SERVICE_UNAVAILABLE;
      case DEADLINE_EXCEEDED -> StatusCodes.GATEWAY_TIMEOUT;
      default -> StatusCodes.INTERNAL_SERVER_ERROR;
    };
  }

  private static HttpResponse json(StatusCode status, JsonNode body) {
    return HttpResponse.create().withStatus(status).addHeader(RawHeader.create("Cache-Control", "no-store"))
        .withEntity(ContentTypes.APPLICATION_JSON, body.toString());
  }

  /** Bad input to a console endpoint, naming the parameter. */
  static final class BadRequest extends RuntimeException {
    BadRequest(String message) {
      super(message);
    }
  }
}
